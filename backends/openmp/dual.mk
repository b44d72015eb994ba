# backends/openmp/dual.mk - the OpenMP dual backend (dual-side GEMM, im2col),
# its own convenience library so it gets $(OPENMP_CFLAGS).  The AVX2 path is
# a target("avx2,fma") function chosen at run time by __builtin_cpu_supports.
if LOOM_HAVE_OPENMP
noinst_LTLIBRARIES += backends/openmp/libloom_omp_dual.la
backends_openmp_libloom_omp_dual_la_SOURCES = \
	backends/openmp/omp_dual.h \
	backends/openmp/dual_gemm_impl.h \
	backends/openmp/dual_lines_impl.h \
	backends/openmp/dual_gemm_f32.c \
	backends/openmp/dual_gemm_f64.c \
	backends/openmp/dual_im2col.c \
	backends/openmp/dual_backend.c
backends_openmp_libloom_omp_dual_la_CPPFLAGS = $(AM_CPPFLAGS)
backends_openmp_libloom_omp_dual_la_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
lib_libloom_la_LIBADD += backends/openmp/libloom_omp_dual.la
endif
