# bench/gpu.mk - the GPU benchmark: loom's CUDA designs against cuSPARSE
# (SpMM CSR ALG1/ALG2/ALG3 and default, SpMV).  Built by nvcc with `make
# bench` (or `make gpu-bench`); linked to libloom and to the shared cudart,
# cuSPARSE and cuBLAS (CUDA_BENCH_LIBS).  bench/run_gpu_bench.sh runs it and
# keeps the results and the command in bench/results/.
EXTRA_DIST += bench/gpu_bench.cu bench/plot_gpu.py bench/run_gpu_bench.sh bench/plan_cost.cu \
	bench/gpu_check.h bench/graph_calls.h bench/bench_args.h

if LOOM_HAVE_CUDA
gpu_bench_program = bench/gpu_bench$(EXEEXT)
# One nvcc command builds a one-file benchmark ($<) against libloom.
loom_gpu_bench_build = $(NVCC) $(NVCC_ARCH_FLAGS) -std=c++17 -O3 -I$(top_srcdir)/include -o $@ \
	$< lib/.libs/libloom.so $(CUDA_BENCH_LIBS) -Xlinker -rpath -Xlinker $(abs_top_builddir)/lib/.libs

bench/gpu_bench$(EXEEXT): $(srcdir)/bench/gpu_bench.cu $(srcdir)/bench/gpu_check.h $(srcdir)/bench/graph_calls.h \
		$(srcdir)/bench/bench_args.h lib/libloom.la
	@$(MKDIR_P) bench
	$(AM_V_GEN)$(loom_gpu_bench_build)
CLEANFILES += bench/gpu_bench$(EXEEXT)

# plan_cost: where a CUDA plan's creation time goes (tune's cost, issue #6).
bench/plan_cost$(EXEEXT): $(srcdir)/bench/plan_cost.cu $(srcdir)/bench/gpu_check.h $(srcdir)/bench/bench_args.h lib/libloom.la
	@$(MKDIR_P) bench
	$(AM_V_GEN)$(loom_gpu_bench_build)
CLEANFILES += bench/plan_cost$(EXEEXT)
gpu_bench_program += bench/plan_cost$(EXEEXT)
else
gpu_bench_program =
endif

gpu-bench: $(gpu_bench_program)
bench: gpu-bench
