# man/bitmap.mk - the pages of dual-side sparsity (include/loom/bitmap.h).
dist_man_MANS += \
	man/man3/loom_bitmap_destroy.3 \
	man/man3/loom_bitmap_from_csr.3 \
	man/man3/loom_bitmap_from_dense.3 \
	man/man3/loom_bitmap_to_csr.3 \
	man/man3/loom_bitmap_to_dense.3 \
	man/man3/loom_bitmap_view_get.3 \
	man/man3/loom_conv_execute.3 \
	man/man3/loom_conv_im2col_bitmap.3 \
	man/man3/loom_conv_im2col_csr.3 \
	man/man3/loom_conv_im2col_dense.3 \
	man/man3/loom_conv_output_size.3 \
	man/man3/loom_conv_plan_create.3 \
	man/man3/loom_conv_plan_destroy.3 \
	man/man3/loom_dual_gemm_execute.3 \
	man/man3/loom_dual_gemm_plan_create.3 \
	man/man3/loom_dual_gemm_plan_destroy.3 \
	man/man3/loom_dual_gemm_plan_explain.3 \
	man/man3/loom_dual_gemm_steps_count.3
