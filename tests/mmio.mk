# tests/mmio.mk - Matrix Market / DLMC reading and writing (included from tests/local.mk).
check_PROGRAMS += tests/test_mmio
TESTS += tests/test_mmio
tests_test_mmio_SOURCES = tests/test_mmio.c
tests_test_mmio_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_mmio_LDADD = lib/libloom.la $(CMOCKA_LIBS)
