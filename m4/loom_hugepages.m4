# LOOM_CHECK_HUGEPAGES: 2 MiB aligned plan arrays advised for transparent
# huge pages (posix_memalign and madvise(MADV_HUGEPAGE)); without them the
# arrays are plain malloc and nothing else changes.
AC_DEFUN([LOOM_CHECK_HUGEPAGES], [
  AC_CHECK_HEADERS([sys/mman.h])
  AC_CHECK_FUNCS([posix_memalign madvise])
  AC_CHECK_DECL([MADV_HUGEPAGE], [loom_have_thp=yes], [loom_have_thp=no], [[#define _DEFAULT_SOURCE
#include <sys/mman.h>]])
  AS_IF([test "x$ac_cv_func_posix_memalign" != xyes || test "x$ac_cv_func_madvise" != xyes],
        [loom_have_thp=no])
  AS_IF([test "x$loom_have_thp" = xyes],
        [AC_DEFINE([LOOM_HAVE_MADV_HUGEPAGE], [1], [posix_memalign and madvise(MADV_HUGEPAGE)])])
])
