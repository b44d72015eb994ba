#!/bin/bash
# session 27 call 4: the CUDA record of 3498cd9 (library code of 8046e76:
# short items longest first, the review's one-sort prepare_bins) on the
# H100, f32; test_cuda, then memcheck while the limit allows
export OUT=${OUT:-/tmp/out}
LIMIT=560 BENCH_TIMEOUT=330 TEST_TIMEOUT=150 TESTS="test_cuda" EXTRA_N=3,5,6,7,12 \
  bash bench/device_run.sh --dtypes f32 --budget-ms 15
