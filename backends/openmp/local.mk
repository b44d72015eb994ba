# backends/openmp/local.mk - the OpenMP SIMD backend, linked into libloom.
# One convenience library per instruction set, so each gets its own -m
# flags; the descriptor picks one at plan time (__builtin_cpu_supports), so
# one installed library runs on any x86-64.
if LOOM_HAVE_OPENMP
OMP_BACKEND_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS)
OMP_BACKEND_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)

noinst_LTLIBRARIES += backends/openmp/libloom_omp.la \
	backends/openmp/libloom_omp_generic.la \
	backends/openmp/libloom_omp_avx2.la \
	backends/openmp/libloom_omp_avx512.la

backends_openmp_libloom_omp_la_SOURCES = \
	backends/openmp/openmp_backend.c \
	backends/openmp/omp_sell.c \
	backends/openmp/omp_sell.h \
	backends/openmp/omp_relabel.c \
	backends/openmp/omp_relabel.h \
	backends/openmp/omp_topology.c \
	backends/openmp/omp_topology.h \
	backends/openmp/omp_team.c \
	backends/openmp/omp_team.h \
	backends/openmp/omp_kernels.h
backends_openmp_libloom_omp_la_CPPFLAGS = $(OMP_BACKEND_CPPFLAGS)
backends_openmp_libloom_omp_la_CFLAGS = $(OMP_BACKEND_CFLAGS)

# Portable: no -m flags, no FMA assumed (fmaf from libm where needed).
backends_openmp_libloom_omp_generic_la_SOURCES = backends/openmp/kernels_generic.c \
	backends/openmp/omp_kernels_impl.h backends/openmp/simd_generic.h
backends_openmp_libloom_omp_generic_la_CPPFLAGS = $(OMP_BACKEND_CPPFLAGS)
backends_openmp_libloom_omp_generic_la_CFLAGS = $(OMP_BACKEND_CFLAGS)

backends_openmp_libloom_omp_avx2_la_SOURCES = backends/openmp/kernels_avx2.c \
	backends/openmp/omp_kernels_impl.h backends/openmp/simd_avx2.h
backends_openmp_libloom_omp_avx2_la_CPPFLAGS = $(OMP_BACKEND_CPPFLAGS)
backends_openmp_libloom_omp_avx2_la_CFLAGS = $(OMP_BACKEND_CFLAGS) -mavx2 -mfma

backends_openmp_libloom_omp_avx512_la_SOURCES = backends/openmp/kernels_avx512.c \
	backends/openmp/omp_kernels_impl.h backends/openmp/simd_avx512.h
backends_openmp_libloom_omp_avx512_la_CPPFLAGS = $(OMP_BACKEND_CPPFLAGS)
backends_openmp_libloom_omp_avx512_la_CFLAGS = $(OMP_BACKEND_CFLAGS) -mavx512f -mavx2 -mfma

lib_libloom_la_LIBADD += backends/openmp/libloom_omp.la \
	backends/openmp/libloom_omp_generic.la \
	backends/openmp/libloom_omp_avx2.la \
	backends/openmp/libloom_omp_avx512.la \
	$(HWLOC_LIBS)
lib_libloom_la_LDFLAGS += $(OPENMP_CFLAGS)
endif
