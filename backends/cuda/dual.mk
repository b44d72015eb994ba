# backends/cuda/dual.mk - the CUDA dual backend: the dual-side GEMM, the
# three im2col strategies, bitmaps and CSR built on the device, and the
# convolution pipeline (dual_cuda.h lists the files).  The .cu files go
# through the `.cu.lo` rule and the nvcc flags of backends/cuda/local.mk
# (--fmad=false, -ftz=false: the bit-exact contract); each keeps its ptxas
# report in backends/cuda/<name>.ptxas.log, which `make cuda-check-spills`
# reads too (a kernel that spills or has a stack frame fails it).
dual_cuda_sources = \
	backends/cuda/dual_device.cu \
	backends/cuda/dual_gemm.cu \
	backends/cuda/dual_lines.cu \
	backends/cuda/dual_csr_build.cu \
	backends/cuda/dual_bitmap_build.cu \
	backends/cuda/dual_im2col.cu \
	backends/cuda/dual_conv.cu
dual_cuda_headers = \
	backends/cuda/dual_cuda.h \
	backends/cuda/dual_common.cuh \
	backends/cuda/dual_tile_build.cuh \
	backends/cuda/dual_gemm_kernel.cuh \
	backends/cuda/dual_gemm_pipe_kernel.cuh \
	backends/cuda/dual_csr_kernels.cuh \
	backends/cuda/dual_bitmap_kernels.cuh \
	backends/cuda/dual_im2col_kernels.cuh
dual_cuda_srcdir_sources = \
	$(srcdir)/backends/cuda/dual_device.cu \
	$(srcdir)/backends/cuda/dual_gemm.cu \
	$(srcdir)/backends/cuda/dual_lines.cu \
	$(srcdir)/backends/cuda/dual_csr_build.cu \
	$(srcdir)/backends/cuda/dual_bitmap_build.cu \
	$(srcdir)/backends/cuda/dual_im2col.cu \
	$(srcdir)/backends/cuda/dual_conv.cu
dual_cuda_ptxas_logs = $(dual_cuda_sources:.cu=.ptxas.log)
loomcu_ptxas_logs += $(dual_cuda_ptxas_logs)
EXTRA_DIST += $(dual_cuda_sources) $(dual_cuda_headers) \
	backends/cuda/dual_cuda_backend.c
if LOOM_HAVE_CUDA
DUAL_CUDA_OBJECTS = $(dual_cuda_sources:.cu=.lo)
$(DUAL_CUDA_OBJECTS): $(srcdir)/backends/cuda/dual_cuda.h $(srcdir)/backends/cuda/dual_common.cuh \
	$(srcdir)/backends/cuda/cuda_upload.h \
	$(srcdir)/backends/cuda/dual_tile_build.cuh
backends/cuda/dual_gemm.lo: $(srcdir)/backends/cuda/dual_gemm_kernel.cuh \
	$(srcdir)/backends/cuda/dual_gemm_pipe_kernel.cuh
backends/cuda/dual_lines.lo: $(srcdir)/backends/cuda/dual_gemm_pipe_kernel.cuh
backends/cuda/dual_csr_build.lo: $(srcdir)/backends/cuda/dual_csr_kernels.cuh
backends/cuda/dual_bitmap_build.lo: $(srcdir)/backends/cuda/dual_bitmap_kernels.cuh
backends/cuda/dual_im2col.lo: $(srcdir)/backends/cuda/dual_im2col_kernels.cuh
lib_libloom_la_SOURCES += \
	backends/cuda/dual_cuda.h \
	backends/cuda/dual_cuda_backend.c
lib_libloom_la_LIBADD += $(DUAL_CUDA_OBJECTS)
EXTRA_lib_libloom_la_DEPENDENCIES += $(DUAL_CUDA_OBJECTS)
CLEANFILES += $(DUAL_CUDA_OBJECTS) $(dual_cuda_sources:.cu=.o) $(dual_cuda_ptxas_logs) \
	backends/cuda/.libs/dual_device.o backends/cuda/.libs/dual_gemm.o \
	backends/cuda/.libs/dual_lines.o \
	backends/cuda/.libs/dual_csr_build.o backends/cuda/.libs/dual_bitmap_build.o \
	backends/cuda/.libs/dual_im2col.o backends/cuda/.libs/dual_conv.o
endif
