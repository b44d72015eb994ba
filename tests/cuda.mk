# tests/cuda.mk - the CUDA backend against the reference, bit for bit.
# Exits 77 (SKIP) with "SKIP: no CUDA device: <why>" where there is no GPU.
# (tests/local.mk includes this file.)
if LOOM_HAVE_CUDA
check_PROGRAMS += tests/test_cuda
TESTS += tests/test_cuda
tests_test_cuda_SOURCES = tests/test_cuda.c tests/oracle.c tests/oracle.h \
	tests/test_matrices.c tests/test_matrices.h tests/fixed_plan.c tests/fixed_plan.h
tests_test_cuda_CFLAGS = $(TESTS_CFLAGS)
tests_test_cuda_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CFLAGS)
tests_test_cuda_LDADD = $(TESTS_LDADD) $(CUDA_LIBS) -lstdc++
endif
