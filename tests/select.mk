# tests/select.mk - the selectors: model files, tune cache, rules, explain
# (included from tests/local.mk).
check_PROGRAMS += tests/test_select
TESTS += tests/test_select
tests_test_select_SOURCES = tests/test_select.c
tests_test_select_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_select_LDADD = lib/libloom.la $(CMOCKA_LIBS)

# The rules' designs and the candidates' products per backend, with
# lib/select_rules.c and lib/select_features.c compiled in (their functions
# are internal), so the CUDA side is checked without a GPU.
check_PROGRAMS += tests/test_select_rules
TESTS += tests/test_select_rules
tests_test_select_rules_SOURCES = tests/test_select_rules.c lib/select_rules.c lib/select_features.c
tests_test_select_rules_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(HWLOC_CFLAGS) -I$(top_srcdir)/lib
tests_test_select_rules_LDADD = lib/libloom.la $(CMOCKA_LIBS) $(HWLOC_LIBS) -lm
