# tests/local.mk - make check: CMocka programs, one per concern.
# A test program exits 77 (SKIP) when the hardware it needs is absent.
TESTS_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
TESTS_LDADD = lib/libloom.la $(CMOCKA_LIBS) -lm

check_PROGRAMS += tests/test_reference tests/test_api tests/test_threads tests/test_fuzz_regressions
TESTS += tests/test_reference tests/test_api tests/test_threads tests/test_fuzz_regressions
tests_test_reference_SOURCES = tests/test_reference.c tests/oracle.c tests/oracle.h tests/test_matrices.c tests/test_matrices.h \
	tests/fixed_plan.c tests/fixed_plan.h tests/test_check.h
tests_test_reference_CFLAGS = $(TESTS_CFLAGS)
tests_test_reference_LDADD = $(TESTS_LDADD)
tests_test_api_SOURCES = tests/test_api.c
tests_test_api_CFLAGS = $(TESTS_CFLAGS)
tests_test_api_LDADD = $(TESTS_LDADD)

tests_test_threads_SOURCES = tests/test_threads.c tests/test_matrices.c tests/test_matrices.h
tests_test_threads_CFLAGS = $(TESTS_CFLAGS)
tests_test_threads_LDADD = $(TESTS_LDADD)

tests_test_fuzz_regressions_SOURCES = tests/test_fuzz_regressions.c
tests_test_fuzz_regressions_CFLAGS = $(TESTS_CFLAGS)
tests_test_fuzz_regressions_LDADD = $(TESTS_LDADD)
EXTRA_DIST += tests/fuzz/regressions

# The CPU test programs under valgrind (memory errors and leaks); the
# reference sweep runs with a shorter list of N (LOOM_TEST_QUICK).
VALGRIND_TESTS = tests/test_api tests/test_mmio tests/test_fuzz_regressions tests/test_reference
check-valgrind: $(check_PROGRAMS)
	@for t in $(VALGRIND_TESTS); do \
	  echo "valgrind: $$t"; \
	  LOOM_TEST_QUICK=1 $(LIBTOOL) --mode=execute valgrind -q --error-exitcode=1 \
	    --leak-check=full --errors-for-leak-kinds=definite,indirect ./$$t > $$t.valgrind.log 2>&1 \
	    || { cat $$t.valgrind.log; exit 1; }; \
	  tail -n 1 $$t.valgrind.log; \
	done
.PHONY: check-valgrind

include $(srcdir)/tests/mmio.mk
include $(srcdir)/tests/fuzz/local.mk
include $(srcdir)/tests/man.mk
include $(srcdir)/tests/openmp.mk
include $(srcdir)/tests/tool.mk
include $(srcdir)/tests/cuda.mk
include $(srcdir)/tests/select.mk
