# man/local.mk - the manual: a man3 page for every public function (and the
# public types), man7 pages for the overview and the design space.
# tests/test_manpages.sh fails when a page exists that is not listed here.
# man/man1/loom.1 (the program's page) is appended by its author.
dist_man_MANS += \
	man/man3/loom.3 \
	man/man3/loom_backend_available.3 \
	man/man3/loom_backend_describe_hardware.3 \
	man/man3/loom_backend_from_name.3 \
	man/man3/loom_backend_name.3 \
	man/man3/loom_compare_result.3 \
	man/man3/loom_context_create.3 \
	man/man3/loom_context_destroy.3 \
	man/man3/loom_context_get_backend.3 \
	man/man3/loom_context_set_backend.3 \
	man/man3/loom_context_set_stream.3 \
	man/man3/loom_context_set_threads.3 \
	man/man3/loom_csr_arrays.3 \
	man/man3/loom_csr_copy.3 \
	man/man3/loom_csr_create.3 \
	man/man3/loom_csr_destroy.3 \
	man/man3/loom_csr_features.3 \
	man/man3/loom_csr_info.3 \
	man/man3/loom_csr_read.3 \
	man/man3/loom_csr_read_memory.3 \
	man/man3/loom_csr_validate.3 \
	man/man3/loom_csr_write.3 \
	man/man3/loom_dense.3 \
	man/man3/loom_dense_alloc.3 \
	man/man3/loom_dense_compare.3 \
	man/man3/loom_dense_copy.3 \
	man/man3/loom_dense_fill_random.3 \
	man/man3/loom_dense_free.3 \
	man/man3/loom_dense_init.3 \
	man/man3/loom_dense_read.3 \
	man/man3/loom_dense_write.3 \
	man/man3/loom_dtype_name.3 \
	man/man3/loom_dtype_size.3 \
	man/man3/loom_features.3 \
	man/man3/loom_last_error.3 \
	man/man3/loom_model_load.3 \
	man/man3/loom_plan_destroy.3 \
	man/man3/loom_plan_explain.3 \
	man/man3/loom_plan_options.3 \
	man/man3/loom_plan_options_init.3 \
	man/man3/loom_plan_strategy.3 \
	man/man3/loom_spmm_execute.3 \
	man/man3/loom_spmm_plan_create.3 \
	man/man3/loom_status.3 \
	man/man3/loom_strategy.3 \
	man/man3/loom_strategy_check.3 \
	man/man3/loom_strategy_design.3 \
	man/man3/loom_strategy_format.3 \
	man/man3/loom_strategy_parse.3 \
	man/man3/loom_strerror.3 \
	man/man3/loom_tune_cache_clear.3 \
	man/man3/loom_tune_cache_path.3 \
	man/man3/loom_version.3 \
	man/man7/loom-designs.7 \
	man/man7/loom.7
dist_man_MANS += man/man1/loom.1
dist_man_MANS += man/man1/loom-train.1
dist_man_MANS += man/man5/loom-model.5
