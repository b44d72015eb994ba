# LOOM_CHECK_OPENMP: the OpenMP SIMD backend (--enable-openmp, default on when found).
AC_DEFUN([LOOM_CHECK_OPENMP], [
  AC_ARG_ENABLE([openmp], [AS_HELP_STRING([--disable-openmp], [do not build the OpenMP backend])],
                [], [enable_openmp=check])
  loom_have_openmp=no
  AS_IF([test "x$enable_openmp" != xno], [
    AC_OPENMP
    AS_IF([test "x$ac_cv_prog_c_openmp" != "xunsupported" && test -n "$ac_cv_prog_c_openmp"],
          [loom_have_openmp=yes])
    AS_IF([test "x$loom_have_openmp" = xno && test "x$enable_openmp" = xyes],
          [AC_MSG_ERROR([--enable-openmp given but the compiler does not support OpenMP])])
  ])
  AS_IF([test "x$loom_have_openmp" = xyes],
        [AC_DEFINE([LOOM_HAVE_OPENMP], [1], [the OpenMP backend is built])])
  AM_CONDITIONAL([LOOM_HAVE_OPENMP], [test "x$loom_have_openmp" = xyes])
  AC_SUBST([OPENMP_CFLAGS])
])
