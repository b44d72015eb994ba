# LOOM_CHECK_CMOCKA: the unit tests (make check) need CMocka.
AC_DEFUN([LOOM_CHECK_CMOCKA], [
  PKG_CHECK_MODULES([CMOCKA], [cmocka >= 1.1], [loom_have_cmocka=yes],
    [loom_have_cmocka=no
     AC_MSG_WARN([CMocka not found: make check will fail (apt-get install libcmocka-dev)])])
  AM_CONDITIONAL([LOOM_HAVE_CMOCKA], [test "x$loom_have_cmocka" = xyes])
])
