# bench/local.mk - the CPU benchmark: loom's OpenMP backend against librsb,
# GraphBLAS and Eigen (each optional, found by m4/loom_bench.m4).
# `make bench` builds it; --enable-bench builds it with `make all`.
if LOOM_HAVE_OPENMP
if LOOM_ENABLE_BENCH
noinst_PROGRAMS += bench/cpu_bench
else
# built by `make check` too, for tests/test_bench_options.sh
check_PROGRAMS += bench/cpu_bench
endif
TESTS += tests/test_bench_options.sh
bench_cpu_bench_SOURCES = bench/cpu_bench.c bench/synthetic_inputs.c bench/synthetic_inputs.h bench/bench_args.h
EXTRA_bench_cpu_bench_SOURCES = bench/eigen_peer.cpp bench/eigen_peer.h
bench_cpu_bench_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS)
bench_cpu_bench_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
bench_cpu_bench_LDADD = lib/libloom.la $(RSB_LIBS) $(GRAPHBLAS_LIBS) $(HWLOC_LIBS) -lm
bench_cpu_bench_LDFLAGS = $(OPENMP_CFLAGS)
if LOOM_HAVE_EIGEN
bench_cpu_bench_SOURCES += bench/eigen_peer.cpp bench/eigen_peer.h
# Eigen at its best: its own vector code for this CPU, contraction allowed
# (and quiet about an unused variable in its own headers).
bench_cpu_bench_CXXFLAGS = $(AM_CXXFLAGS) $(EIGEN_CFLAGS) $(OPENMP_CFLAGS) -O3 -march=native \
	-ffp-contract=fast -Wno-unused-variable
endif
bench_programs = bench/cpu_bench
endif

EXTRA_DIST += bench/results/README.md tests/test_bench_options.sh
# tee with the command's status, for run_gpu_bench.sh and run_dual_bench.sh
EXTRA_DIST += bench/tee_status.sh
# The benchmark programs' manual pages (`man -l bench/man/gpu_bench.1`):
# shipped, not installed, as the programs are not.  tests/test_manpages.sh
# checks them against the programs' options.
EXTRA_DIST += \
	bench/man/cpu_bench.1 \
	bench/man/dual_bench.1 \
	bench/man/dual_gpu_bench.1 \
	bench/man/gpu_bench.1 \
	bench/man/loom-sweep.1 \
	bench/man/plan_cost.1 \
	bench/man/run_dual_bench.sh.1 \
	bench/man/tc_bench.1 \
	bench/man/tc_gpu_run.sh.1 \
	bench/man/tc_probe.1
.PHONY: bench
bench: $(bench_programs)
include $(srcdir)/bench/gpu.mk
include $(srcdir)/bench/select.mk
