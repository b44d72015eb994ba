# tests/select.mk - the selectors: model files, tune cache, rules, explain
# (included from tests/local.mk).
check_PROGRAMS += tests/test_select
TESTS += tests/test_select
tests_test_select_SOURCES = tests/test_select.c
tests_test_select_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_select_LDADD = lib/libloom.la $(CMOCKA_LIBS)
