#!/bin/bash
# session 26 call 3: the CUDA record of 520e106 (H100, f32): the retrained
# model (auto) with lanes across warps and tile-major; test_cuda, memcheck
export OUT=${OUT:-/tmp/out}
LIMIT=480 BENCH_TIMEOUT=330 TEST_TIMEOUT=150 TESTS="test_cuda" EXTRA_N=3,5,6,7,12 \
  bash bench/device_run.sh --dtypes f32 --budget-ms 15
