# LOOM_CHECK_SANITIZERS: --enable-sanitizers builds everything with
# AddressSanitizer and UndefinedBehaviorSanitizer (=thread: ThreadSanitizer).
AC_DEFUN([LOOM_CHECK_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers@<:@=address|thread@:>@],
                    [build with ASan+UBSan (default when given) or TSan, for testing])],
    [], [enable_sanitizers=no])
  AS_CASE([$enable_sanitizers],
    [no], [SANITIZER_FLAGS=""],
    [yes|address], [SANITIZER_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"],
    [thread], [SANITIZER_FLAGS="-fsanitize=thread -fno-omit-frame-pointer"],
    [AC_MSG_ERROR([--enable-sanitizers takes address or thread, not '$enable_sanitizers'])])
  AS_IF([test -n "$SANITIZER_FLAGS"], [
    save_CFLAGS=$CFLAGS; CFLAGS="$CFLAGS $SANITIZER_FLAGS"
    save_LDFLAGS=$LDFLAGS; LDFLAGS="$LDFLAGS $SANITIZER_FLAGS"
    AC_MSG_CHECKING([whether $CC accepts $SANITIZER_FLAGS])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
                   [AC_MSG_RESULT([no]); AC_MSG_ERROR([the compiler cannot build with $SANITIZER_FLAGS])])
    CXXFLAGS="$CXXFLAGS $SANITIZER_FLAGS"
  ])
  AM_CONDITIONAL([LOOM_SANITIZERS], [test -n "$SANITIZER_FLAGS"])
  AC_SUBST([SANITIZER_FLAGS])
])
