# LOOM_CHECK_HWLOC: topology for the OpenMP backend (--with-hwloc[=DIR]).
AC_DEFUN([LOOM_CHECK_HWLOC], [
  AC_ARG_WITH([hwloc], [AS_HELP_STRING([--with-hwloc@<:@=DIR@:>@], [use hwloc for topology (default: when found)])],
              [], [with_hwloc=check])
  loom_have_hwloc=no
  AS_IF([test "x$with_hwloc" != xno], [
    AS_CASE([$with_hwloc],
      [yes|check], [PKG_CHECK_MODULES([HWLOC], [hwloc >= 2.0], [loom_have_hwloc=yes], [loom_have_hwloc=no])],
      [HWLOC_CFLAGS="-I$with_hwloc/include"; HWLOC_LIBS="-L$with_hwloc/lib -lhwloc"
       save_CPPFLAGS=$CPPFLAGS; CPPFLAGS="$CPPFLAGS $HWLOC_CFLAGS"; save_LIBS=$LIBS; LIBS="$LIBS $HWLOC_LIBS"
       AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <hwloc.h>]], [[hwloc_topology_t t; hwloc_topology_init(&t);]])],
                      [loom_have_hwloc=yes], [loom_have_hwloc=no])
       CPPFLAGS=$save_CPPFLAGS; LIBS=$save_LIBS])
    AS_IF([test "x$loom_have_hwloc" = xno && test "x$with_hwloc" != xcheck],
          [AC_MSG_ERROR([--with-hwloc given but hwloc >= 2.0 was not found (apt-get install libhwloc-dev)])])
  ])
  AS_IF([test "x$loom_have_hwloc" = xyes], [AC_DEFINE([LOOM_HAVE_HWLOC], [1], [hwloc is available])])
  AM_CONDITIONAL([LOOM_HAVE_HWLOC], [test "x$loom_have_hwloc" = xyes])
  AC_SUBST([HWLOC_CFLAGS])
  AC_SUBST([HWLOC_LIBS])
])
