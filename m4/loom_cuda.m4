# LOOM_CHECK_CUDA: the CUDA backend.  --with-cuda[=DIR] demands it (configure
# stops when it cannot be met), --without-cuda skips it, and the default
# builds it when nvcc and the CUDA runtime are found.  cudart is linked
# statically so libloom loads on machines with no CUDA driver.
AC_DEFUN([LOOM_CHECK_CUDA], [
  AC_ARG_WITH([cuda], [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@], [build the CUDA backend (default: when found, DIR defaults to /usr/local/cuda)])],
              [], [with_cuda=check])
  AC_ARG_VAR([NVCC], [the CUDA compiler])
  AC_ARG_VAR([NVCC_ARCH_FLAGS], [nvcc code generation flags (default: sm_90 code plus compute_90 PTX)])
  loom_have_cuda=no
  loom_cuda_summary=""
  AS_IF([test "x$with_cuda" != xno], [
    AS_CASE([$with_cuda], [yes|check], [loom_cuda_dir=/usr/local/cuda], [loom_cuda_dir=$with_cuda])
    AS_IF([test -z "$NVCC"], [AC_PATH_PROG([NVCC], [nvcc], [], [$loom_cuda_dir/bin$PATH_SEPARATOR$PATH])])
    AS_IF([test -n "$NVCC"], [
      loom_cuda_dir=`AS_DIRNAME(["$NVCC"])`; loom_cuda_dir=`AS_DIRNAME(["$loom_cuda_dir"])`
      CUDA_CFLAGS="-I$loom_cuda_dir/include"
      loom_cuda_libdir=$loom_cuda_dir/lib64
      AS_IF([test -d "$loom_cuda_dir/targets/x86_64-linux/lib"], [loom_cuda_libdir=$loom_cuda_dir/targets/x86_64-linux/lib])
      AS_IF([test -f "$loom_cuda_libdir/libcudart_static.a"], [
        loom_have_cuda=yes
        CUDA_LIBS="-L$loom_cuda_libdir -lcudart_static -ldl -lpthread -lrt"
        CUDA_BENCH_LIBS="-L$loom_cuda_libdir -lcusparse -lcublas -lcudart"
        loom_cuda_summary="($NVCC)"
      ])
    ])
    AS_IF([test "x$loom_have_cuda" = xno && test "x$with_cuda" != xcheck],
          [AC_MSG_ERROR([--with-cuda given but nvcc and libcudart_static were not found under $loom_cuda_dir])])
  ])
  AS_IF([test -z "$NVCC_ARCH_FLAGS"],
        [NVCC_ARCH_FLAGS="-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90"])
  AS_IF([test "x$loom_have_cuda" = xyes], [AC_DEFINE([LOOM_HAVE_CUDA], [1], [the CUDA backend is built])])
  AM_CONDITIONAL([LOOM_HAVE_CUDA], [test "x$loom_have_cuda" = xyes])
  AC_SUBST([CUDA_CFLAGS])
  AC_SUBST([CUDA_LIBS])
  AC_SUBST([CUDA_BENCH_LIBS])
])
