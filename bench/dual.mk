# bench/dual.mk - dual-side sparsity benchmarks (`make bench`, or
# --enable-bench for `make all`).  dual_bench: the CPU, against OpenBLAS
# (built where configure found it: Debian's libopenblas-dev).  dual_gpu_bench: the GPU, against cuBLAS and cuSPARSE.
# bench/run_dual_bench.sh runs them and keeps results in bench/results/dual/.
EXTRA_DIST += bench/run_dual_bench.sh bench/dual_gpu_bench.cu bench/dual_gpu_run.sh
if LOOM_HAVE_OPENMP
if LOOM_HAVE_OPENBLAS
if LOOM_ENABLE_BENCH
noinst_PROGRAMS += bench/dual_bench
else
EXTRA_PROGRAMS += bench/dual_bench
endif
bench_dual_bench_SOURCES = bench/dual_bench.c bench/bench_args.h
bench_dual_bench_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
bench_dual_bench_LDADD = lib/libloom.la -lopenblas -lm
bench_dual_bench_LDFLAGS = $(OPENMP_CFLAGS)
dual_cpu_bench_program = bench/dual_bench$(EXEEXT)
else
dual_cpu_bench_program =
endif
else
dual_cpu_bench_program =
endif

# dual_gpu_bench times the pipeline's stages alone, so it compiles the CUDA
# dual backend's device files in (backends/cuda/dual.mk lists them), with
# the library's contract flags; whole operations go through libloom.
if LOOM_HAVE_CUDA
bench/dual_gpu_bench$(EXEEXT): $(srcdir)/bench/dual_gpu_bench.cu $(srcdir)/bench/gpu_check.h $(srcdir)/bench/bench_args.h lib/libloom.la \
		$(dual_cuda_sources) $(dual_cuda_headers)
	@$(MKDIR_P) bench
	$(AM_V_GEN)$(NVCC) $(NVCC_ARCH_FLAGS) -std=c++17 -O3 --fmad=false -ftz=false \
		-Xcompiler -Wall,-Wextra -I$(top_srcdir)/include -I$(top_srcdir)/backends/cuda -o $@ \
		$(srcdir)/bench/dual_gpu_bench.cu $(dual_cuda_srcdir_sources) \
		lib/.libs/libloom.so $(CUDA_BENCH_LIBS) \
		-Xlinker -rpath -Xlinker $(abs_top_builddir)/lib/.libs
CLEANFILES += bench/dual_gpu_bench$(EXEEXT)
dual_gpu_bench_program = bench/dual_gpu_bench$(EXEEXT)
else
dual_gpu_bench_program =
endif
bench: $(dual_cpu_bench_program) $(dual_gpu_bench_program)
gpu-bench: $(dual_gpu_bench_program)
