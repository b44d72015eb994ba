# backends/cuda/tc.mk - the tensor-core SpMM kernels (TCA-SpMM), linked into
# libloom when configure found nvcc.  Include after backends/cuda/local.mk.
#
# The same nvcc contract flags as the CUDA-core kernels (no contraction, IEEE
# subnormals); the reference headers are needed for the strategy's order and
# the operand rounding.  ptxas's reports go to tc_spmm.ptxas.log and
# tc_tiles.ptxas.log, which `make cuda-check-spills` reads with the other
# CUDA kernels' (a kernel that spills or has a stack frame fails it).
loomcu_ptxas_logs += backends/cuda/tc_spmm.ptxas.log backends/cuda/tc_tiles.ptxas.log
EXTRA_DIST += \
	backends/cuda/tc_spmm.cu \
	backends/cuda/tc_tiles.cu \
	backends/cuda/tc_spmm.h \
	backends/cuda/tc_mma.cuh

loomtc_nvcc_flags = -std=c++17 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true \
	-Xptxas -v -Xcompiler -fvisibility=hidden -O3
loomtc_nvcc_includes = -I$(top_builddir) -I$(top_srcdir)/include -I$(top_srcdir)/lib \
	-I$(top_srcdir)/reference -I$(top_srcdir)/backends/cuda $(CUDA_CFLAGS)
loomtc_headers = $(srcdir)/backends/cuda/tc_spmm.h $(srcdir)/backends/cuda/tc_mma.cuh \
	$(srcdir)/backends/cuda/cuda_upload.h $(srcdir)/backends/cuda/pdl.cuh \
	$(srcdir)/reference/tc_model.h $(srcdir)/reference/tc_round.h

if LOOM_HAVE_CUDA
backends/cuda/tc_spmm.lo: $(srcdir)/backends/cuda/tc_spmm.cu $(loomtc_headers)
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)rm -f $@; $(top_srcdir)/build-aux/nvcc-libtool $@ $(NVCC) $(NVCC_ARCH_FLAGS) \
		$(loomtc_nvcc_flags) $(loomtc_nvcc_includes) -c $(srcdir)/backends/cuda/tc_spmm.cu \
		> backends/cuda/tc_spmm.ptxas.log 2>&1; \
	status=$$?; grep -v 'ptxas info\|bytes stack frame' backends/cuda/tc_spmm.ptxas.log; exit $$status

backends/cuda/tc_tiles.lo: $(srcdir)/backends/cuda/tc_tiles.cu $(loomtc_headers)
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)rm -f $@; $(top_srcdir)/build-aux/nvcc-libtool $@ $(NVCC) $(NVCC_ARCH_FLAGS) \
		$(loomtc_nvcc_flags) $(loomtc_nvcc_includes) -c $(srcdir)/backends/cuda/tc_tiles.cu \
		> backends/cuda/tc_tiles.ptxas.log 2>&1; \
	status=$$?; grep -v 'ptxas info\|bytes stack frame' backends/cuda/tc_tiles.ptxas.log; exit $$status

lib_libloom_la_SOURCES += backends/cuda/cuda_tc.c backends/cuda/cuda_tc.h
lib_libloom_la_LIBADD += backends/cuda/tc_spmm.lo backends/cuda/tc_tiles.lo
EXTRA_lib_libloom_la_DEPENDENCIES += backends/cuda/tc_spmm.lo backends/cuda/tc_tiles.lo
CLEANFILES += backends/cuda/tc_spmm.lo backends/cuda/tc_spmm.o backends/cuda/.libs/tc_spmm.o \
	backends/cuda/tc_tiles.lo backends/cuda/tc_tiles.o backends/cuda/.libs/tc_tiles.o
endif
