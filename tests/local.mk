# tests/local.mk - make check: CMocka programs, one per concern.
# A test program exits 77 (SKIP) when the hardware it needs is absent.
TESTS_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
TESTS_LDADD = lib/libloom.la $(CMOCKA_LIBS) -lm

check_PROGRAMS += tests/test_reference tests/test_api
TESTS += tests/test_reference tests/test_api
tests_test_reference_SOURCES = tests/test_reference.c tests/oracle.c tests/oracle.h tests/test_matrices.c tests/test_matrices.h
tests_test_reference_CFLAGS = $(TESTS_CFLAGS)
tests_test_reference_LDADD = $(TESTS_LDADD)
tests_test_api_SOURCES = tests/test_api.c
tests_test_api_CFLAGS = $(TESTS_CFLAGS)
tests_test_api_LDADD = $(TESTS_LDADD)

include $(srcdir)/tests/mmio.mk
