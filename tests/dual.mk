# tests/dual.mk - dual-side sparsity: bitmap format, dual-side GEMM, step
# counter, sparse convolution (test_dual: reference, openmp, and cuda when
# a GPU is present), and test_dual_cuda (exits 77 = SKIP without a GPU).
check_PROGRAMS += tests/test_dual tests/test_dual_cuda
TESTS += tests/test_dual tests/test_dual_cuda
tests_test_dual_SOURCES = tests/test_dual.c tests/dual_util.c tests/dual_util.h tests/test_check.h
tests_test_dual_CFLAGS = $(TESTS_CFLAGS)
tests_test_dual_LDADD = $(TESTS_LDADD)
tests_test_dual_cuda_SOURCES = tests/test_dual_cuda.c tests/dual_util.c tests/dual_util.h tests/test_check.h \
	tests/test_operands.c tests/test_operands.h tests/test_matrices.c tests/test_matrices.h
tests_test_dual_cuda_CFLAGS = $(TESTS_CFLAGS)
tests_test_dual_cuda_LDADD = $(TESTS_LDADD)
EXTRA_DIST += data/dlmc/rn50_mp0.98_bottleneck_1_block_group1_1_1.smtx.gz \
	data/dlmc/rn50_mp0.98_bottleneck_2_block_group1_1_1.smtx.gz
