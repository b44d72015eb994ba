# bench/select.mk - selection: loom-sweep measures every candidate strategy
# on a matrix set; tools/loom-train learns a model from its CSV.
# Built by `make bench` (not installed).
EXTRA_PROGRAMS += bench/loom-sweep
bench_loom_sweep_SOURCES = bench/loom_sweep.c bench/bench_args.h lib/select.h lib/select_features.c
# Own flags, so the shared select_features.c gets its own object here.
bench_loom_sweep_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS)
bench_loom_sweep_LDADD = lib/libloom.la $(HWLOC_LIBS) -lm
CLEANFILES += bench/loom-sweep
bench: bench/loom-sweep
.PHONY: bench

# The default models, installed in pkgdatadir where the library looks for
# <backend>.model (LOOM_DATADIR; $LOOM_MODEL_DIR overrides).  See loom-model(5).
dist_pkgdata_DATA += data/models/openmp.model data/models/cuda.model
EXTRA_DIST += tools/loom-train bench/select_eval.py bench/gpu_bench_sweep.py bench/gpu_bench_ab.py
