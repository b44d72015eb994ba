# bench/tc.mk - the tensor-core SpMM benchmark and the MMA probe, built by
# `make bench` when CUDA is found.  Include after bench/local.mk.
#   bench/tc_probe [bench/results/tc/model.txt]   fit the MMA model on this GPU
#   bench/tc_bench --dlmc DIR --csv FILE            DLMC against cuSPARSE / cuBLAS
# Both are nvcc programs linked by nvcc; tc_bench also links the CUDA-core
# kernels (spmm_f32) to compare with loom's best CUDA-core design.
EXTRA_DIST += bench/tc_probe.cu bench/tc_bench.cu bench/tc_gpu_run.sh bench/smtx_inputs.py bench/dlmc_npz.py bench/results/tc/README.md

if LOOM_HAVE_CUDA
tc_bench_programs = bench/tc_probe bench/tc_bench
loomtc_host_c = -Xcompiler -ffp-contract=off

bench/tc_probe: $(srcdir)/bench/tc_probe.cu $(srcdir)/bench/bench_args.h $(srcdir)/reference/tc_model.c $(loomtc_headers)
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(NVCC) $(NVCC_ARCH_FLAGS) $(loomtc_nvcc_flags) $(loomtc_host_c) $(loomtc_nvcc_includes) \
		-o $@ $(srcdir)/bench/tc_probe.cu $(srcdir)/reference/tc_model.c > bench/tc_probe.ptxas.log 2>&1 \
		|| { cat bench/tc_probe.ptxas.log; exit 1; }

bench/tc_bench: $(srcdir)/bench/tc_bench.cu $(srcdir)/bench/gpu_check.h $(srcdir)/bench/graph_calls.h $(srcdir)/bench/bench_args.h \
		$(srcdir)/reference/tc_model.c $(loomtc_headers) \
		backends/cuda/tc_spmm.lo backends/cuda/tc_tiles.lo backends/cuda/spmm_f32.lo
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(NVCC) $(NVCC_ARCH_FLAGS) -std=c++17 -O2 $(loomtc_host_c) $(loomtc_nvcc_includes) \
		-o $@ $(srcdir)/bench/tc_bench.cu $(srcdir)/reference/tc_model.c backends/cuda/tc_spmm.o \
		backends/cuda/tc_tiles.o backends/cuda/spmm_f32.o $(CUDA_BENCH_LIBS) -lz

CLEANFILES += bench/tc_probe bench/tc_bench bench/tc_probe.ptxas.log
endif

bench: $(tc_bench_programs)
