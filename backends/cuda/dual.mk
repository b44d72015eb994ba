# backends/cuda/dual.mk - the CUDA dual backend (dual-side GEMM).  The .cu
# file goes through the `.cu.lo` rule and the nvcc flags of
# backends/cuda/local.mk (--fmad=false, -ftz=false: the bit-exact contract).
EXTRA_DIST += backends/cuda/dual_gemm.cu
if LOOM_HAVE_CUDA
DUAL_CUDA_OBJECTS = backends/cuda/dual_gemm.lo
$(DUAL_CUDA_OBJECTS): $(srcdir)/backends/cuda/dual_cuda.h
lib_libloom_la_SOURCES += \
	backends/cuda/dual_cuda.h \
	backends/cuda/dual_cuda_backend.c
lib_libloom_la_LIBADD += $(DUAL_CUDA_OBJECTS)
EXTRA_lib_libloom_la_DEPENDENCIES += $(DUAL_CUDA_OBJECTS)
CLEANFILES += $(DUAL_CUDA_OBJECTS) backends/cuda/dual_gemm.o backends/cuda/.libs/dual_gemm.o \
	backends/cuda/dual_gemm.ptxas.log
endif
