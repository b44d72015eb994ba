# tests/openmp.mk - the OpenMP backend against the reference, bit for bit.
# (tests/local.mk includes this file.)
if LOOM_HAVE_OPENMP
check_PROGRAMS += tests/test_openmp
TESTS += tests/test_openmp
tests_test_openmp_SOURCES = tests/test_openmp.c tests/test_operands.c tests/test_operands.h tests/test_check.h \
	tests/oracle.c tests/oracle.h \
	tests/test_matrices.c tests/test_matrices.h tests/fixed_plan.c tests/fixed_plan.h
tests_test_openmp_CFLAGS = $(TESTS_CFLAGS)
tests_test_openmp_LDADD = $(TESTS_LDADD)
endif
