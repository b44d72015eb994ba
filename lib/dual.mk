# lib/dual.mk - dual-side sparsity: the bitmap format, the dual-side GEMM,
# sparse convolution; the core and the reference (the specification).
nobase_include_HEADERS += include/loom/bitmap.h
lib_libloom_la_SOURCES += \
	lib/dual_internal.h \
	lib/bitmap.c \
	lib/dual_registry.c \
	lib/dual_gemm_api.c \
	lib/dual_conv_api.c \
	lib/dual_zero_safe.c \
	lib/dual_lines.c \
	reference/dual_gemm.h \
	reference/dual_gemm_f32.c \
	reference/dual_gemm_f64.c \
	reference/dual_steps.c \
	reference/dual_im2col.c \
	reference/dual_backend.c
