# tests/tc.mk - the tensor-core SpMM: the reference model on the host
# (always; runs in CI) and the kernels against it on the GPU (built with
# CUDA; exits 77 = SKIP when there is no device).  Include from Makefile.am
# after tests/local.mk.
check_PROGRAMS += tests/test_tc_model
TESTS += tests/test_tc_model
tests_test_tc_model_SOURCES = tests/test_tc_model.c reference/tc_model.c reference/tc_model.h \
	reference/tc_round.h
tests_test_tc_model_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_tc_model_LDADD = $(CMOCKA_LIBS) -lm

if LOOM_HAVE_CUDA
check_PROGRAMS += tests/test_tc
TESTS += tests/test_tc
tests_test_tc_SOURCES = tests/test_tc.c reference/tc_model.c
tests_test_tc_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/backends/cuda $(CUDA_CFLAGS)
tests_test_tc_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_test_tc_LDADD = backends/cuda/tc_spmm.lo backends/cuda/tc_tiles.lo $(CUDA_LIBS) -lstdc++ $(CMOCKA_LIBS) -lm
endif

# The probe's model fit, checked without a GPU (needs bench/tc_probe).
EXTRA_DIST += tests/test_tc_probe_selftest.sh
if LOOM_HAVE_CUDA
TESTS += tests/test_tc_probe_selftest.sh
# built before the tests run (a .log prerequisite would replace automake's rule)
check_SCRIPTS = bench/tc_probe
endif
