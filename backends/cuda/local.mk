# backends/cuda/local.mk - the CUDA backend, linked into libloom when
# configure found nvcc (LOOM_HAVE_CUDA).  The .cu files are compiled by nvcc
# through build-aux/nvcc-libtool into libtool objects; the C glue by the C
# compiler.  cudart is static (CUDA_LIBS) so libloom loads with no driver.
#
# The bit-exact contract's nvcc flags: no contraction (--fmad=false), IEEE
# subnormals, division and square root; every fma is written explicitly.
# -Xptxas -v prints each kernel's registers and spills into the build log
# (and into backends/cuda/spmm_*.ptxas.log): `make cuda-check-spills` fails
# when any kernel spills or has a stack frame.
EXTRA_DIST += \
	backends/cuda/spmm_f32.cu \
	backends/cuda/spmm_f64.cu \
	backends/cuda/spmm_common.cuh \
	backends/cuda/pdl.cuh \
	backends/cuda/spmm_rb.cuh \
	backends/cuda/spmm_eb.cuh \
	backends/cuda/spmm_eb_segments.cuh \
	backends/cuda/spmm_rb_ktile.cuh \
	backends/cuda/spmm_launch.cuh \
	backends/cuda/cuda_kernels.h \
	backends/cuda/cuda_status.h \
	backends/cuda/cuda_upload.h \
	backends/cuda/cuda_backend.c \
	backends/cuda/cuda_plan.c \
	backends/cuda/cuda_pool.c \
	backends/cuda/check_spills.sh

loomcu_ptxas_logs = backends/cuda/spmm_f32.ptxas.log backends/cuda/spmm_f64.ptxas.log

if LOOM_HAVE_CUDA
loomcu_nvcc_flags = -std=c++17 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true \
	-Xptxas -v -Xcompiler -fvisibility=hidden -O3
loomcu_nvcc_includes = -I$(top_builddir) -I$(top_srcdir)/include -I$(top_srcdir)/lib \
	-I$(top_srcdir)/backends/cuda $(CUDA_CFLAGS)
loomcu_objects = backends/cuda/spmm_f32.lo backends/cuda/spmm_f64.lo
loomcu_kernel_deps = $(srcdir)/backends/cuda/spmm_common.cuh $(srcdir)/backends/cuda/pdl.cuh \
	$(srcdir)/backends/cuda/spmm_rb.cuh \
	$(srcdir)/backends/cuda/spmm_eb.cuh $(srcdir)/backends/cuda/spmm_eb_segments.cuh \
	$(srcdir)/backends/cuda/spmm_rb_ktile.cuh $(srcdir)/backends/cuda/spmm_launch.cuh \
	$(srcdir)/backends/cuda/cuda_kernels.h

# nvcc's output (the ptxas report) is kept in OBJECT.ptxas.log and shown.
.cu.lo:
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)rm -f $@; $(top_srcdir)/build-aux/nvcc-libtool $@ $(NVCC) $(NVCC_ARCH_FLAGS) \
		$(loomcu_nvcc_flags) $(loomcu_nvcc_includes) -c $< > $(@:.lo=.ptxas.log) 2>&1; \
	status=$$?; cat $(@:.lo=.ptxas.log); exit $$status

$(loomcu_objects): $(loomcu_kernel_deps)

lib_libloom_la_SOURCES += \
	backends/cuda/cuda_kernels.h \
	backends/cuda/cuda_status.h \
	backends/cuda/cuda_upload.h \
	backends/cuda/cuda_backend.c \
	backends/cuda/cuda_plan.c \
	backends/cuda/cuda_pool.c
lib_libloom_la_CPPFLAGS += $(CUDA_CFLAGS)
lib_libloom_la_LIBADD += $(loomcu_objects) $(CUDA_LIBS) -lstdc++
EXTRA_lib_libloom_la_DEPENDENCIES = $(loomcu_objects)
CLEANFILES += $(loomcu_objects) backends/cuda/spmm_f32.o backends/cuda/spmm_f64.o \
	backends/cuda/.libs/spmm_f32.o backends/cuda/.libs/spmm_f64.o $(loomcu_ptxas_logs)
loomcu_spill_check = $(SHELL) $(srcdir)/backends/cuda/check_spills.sh $(loomcu_ptxas_logs)
else
loomcu_spill_check = echo "cuda-check-spills: the CUDA backend is not built"
endif

cuda-check-spills: lib/libloom.la
	$(loomcu_spill_check)
