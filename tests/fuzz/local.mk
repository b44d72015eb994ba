# tests/fuzz/local.mk - `make fuzz`: each libFuzzer target for FUZZ_SECONDS.
FUZZ_SECONDS = 60
EXTRA_DIST += tests/fuzz/run-fuzzers.sh tests/fuzz/fuzz_mm_read.c tests/fuzz/fuzz_csr_plan.c
fuzz:
	$(SHELL) $(srcdir)/tests/fuzz/run-fuzzers.sh $(srcdir) $(FUZZ_SECONDS)
.PHONY: fuzz
