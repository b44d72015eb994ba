# LOOM_CHECK_ZLIB: zlib reads .mtx.gz / .smtx.gz transparently.
AC_DEFUN([LOOM_CHECK_ZLIB], [
  AC_ARG_WITH([zlib], [AS_HELP_STRING([--without-zlib], [do not read gzip-compressed files])],
              [], [with_zlib=yes])
  loom_have_zlib=no
  AS_IF([test "x$with_zlib" != xno], [
    PKG_CHECK_MODULES([ZLIB], [zlib], [loom_have_zlib=yes], [
      AC_CHECK_LIB([z], [gzopen], [loom_have_zlib=yes; ZLIB_LIBS=-lz], [loom_have_zlib=no])])
    AS_IF([test "x$loom_have_zlib" = xno && test "x$with_zlib" = xyes],
      [AC_MSG_WARN([zlib not found: gzip-compressed matrices cannot be read (apt-get install zlib1g-dev)])])
  ])
  AS_IF([test "x$loom_have_zlib" = xyes], [AC_DEFINE([LOOM_HAVE_ZLIB], [1], [zlib is available])])
  AM_CONDITIONAL([LOOM_HAVE_ZLIB], [test "x$loom_have_zlib" = xyes])
  AC_SUBST([ZLIB_CFLAGS])
  AC_SUBST([ZLIB_LIBS])
])
