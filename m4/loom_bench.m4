# LOOM_CHECK_BENCH_PEERS: optional peers the CPU benchmark compares against.
AC_DEFUN([LOOM_CHECK_BENCH_PEERS], [
  AC_ARG_ENABLE([bench], [AS_HELP_STRING([--enable-bench], [build the benchmark programs with make all])],
                [], [enable_bench=no])
  AM_CONDITIONAL([LOOM_ENABLE_BENCH], [test "x$enable_bench" = xyes])
  loom_bench_summary=""
  AC_CHECK_HEADER([rsb.h], [AC_CHECK_LIB([rsb], [rsb_lib_init], [loom_have_librsb=yes; RSB_LIBS=-lrsb], [loom_have_librsb=no])], [loom_have_librsb=no])
  loom_have_graphblas=no
  AC_CHECK_HEADERS([suitesparse/GraphBLAS.h GraphBLAS.h], [loom_graphblas_header=yes; break])
  AS_IF([test "x$loom_graphblas_header" = xyes],
        [AC_CHECK_LIB([graphblas], [GrB_init], [loom_have_graphblas=yes; GRAPHBLAS_LIBS=-lgraphblas])])
  AC_LANG_PUSH([C++])
  save_CPPFLAGS=$CPPFLAGS; CPPFLAGS="$CPPFLAGS -I/usr/include/eigen3"
  AC_CHECK_HEADER([Eigen/Sparse], [loom_have_eigen=yes; EIGEN_CFLAGS=-I/usr/include/eigen3], [loom_have_eigen=no])
  CPPFLAGS=$save_CPPFLAGS
  AC_LANG_POP([C++])
  AS_IF([test "x$loom_have_librsb" = xyes], [AC_DEFINE([LOOM_HAVE_LIBRSB], [1], [librsb for benchmarks]) loom_bench_summary="$loom_bench_summary librsb"])
  AS_IF([test "x$loom_have_graphblas" = xyes], [AC_DEFINE([LOOM_HAVE_GRAPHBLAS], [1], [GraphBLAS for benchmarks]) loom_bench_summary="$loom_bench_summary GraphBLAS"])
  AS_IF([test "x$loom_have_eigen" = xyes], [AC_DEFINE([LOOM_HAVE_EIGEN], [1], [Eigen for benchmarks]) loom_bench_summary="$loom_bench_summary Eigen"])
  loom_have_openblas=no
  AC_CHECK_HEADER([cblas.h], [AC_CHECK_LIB([openblas], [openblas_set_num_threads],
                                           [loom_have_openblas=yes])])
  AS_IF([test "x$loom_have_openblas" = xyes], [loom_bench_summary="$loom_bench_summary OpenBLAS"])
  AS_IF([test -z "$loom_bench_summary"], [loom_bench_summary=" none"])
  AM_CONDITIONAL([LOOM_HAVE_LIBRSB], [test "x$loom_have_librsb" = xyes])
  AM_CONDITIONAL([LOOM_HAVE_GRAPHBLAS], [test "x$loom_have_graphblas" = xyes])
  AM_CONDITIONAL([LOOM_HAVE_OPENBLAS], [test "x$loom_have_openblas" = xyes])
  AM_CONDITIONAL([LOOM_HAVE_EIGEN], [test "x$loom_have_eigen" = xyes])
  AC_SUBST([RSB_LIBS])
  AC_SUBST([GRAPHBLAS_LIBS])
  AC_SUBST([EIGEN_CFLAGS])
])
