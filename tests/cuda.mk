# tests/cuda.mk - the CUDA backend against the reference, bit for bit
# (test_cuda), and its device-memory API paths: streams, graphs, errors,
# a full device (test_cuda_api).  Each exits 77 (SKIP) with "SKIP: no CUDA
# device: <why>" where there is no GPU.  (tests/local.mk includes this file.)
if LOOM_HAVE_CUDA
cuda_test_helpers = tests/test_operands.c tests/test_operands.h tests/test_check.h tests/oracle.c tests/oracle.h \
	tests/test_matrices.c tests/test_matrices.h tests/fixed_plan.c tests/fixed_plan.h
check_PROGRAMS += tests/test_cuda tests/test_cuda_api
TESTS += tests/test_cuda tests/test_cuda_api
tests_test_cuda_SOURCES = tests/test_cuda.c $(cuda_test_helpers)
tests_test_cuda_CFLAGS = $(TESTS_CFLAGS)
tests_test_cuda_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
tests_test_cuda_LDADD = $(TESTS_LDADD) $(CUDA_LIBS) -lstdc++
tests_test_cuda_api_SOURCES = tests/test_cuda_api.c $(cuda_test_helpers)
tests_test_cuda_api_CFLAGS = $(TESTS_CFLAGS)
tests_test_cuda_api_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
tests_test_cuda_api_LDADD = $(TESTS_LDADD) $(CUDA_LIBS) -lstdc++
endif
