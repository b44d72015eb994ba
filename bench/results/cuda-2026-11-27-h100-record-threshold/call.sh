#!/bin/bash
# session 25 call 12: the CUDA record of 0341c32 (H100, f32), tests, memcheck, racecheck
export OUT=${OUT:-/tmp/out}
LIMIT=560 BENCH_TIMEOUT=330 TEST_TIMEOUT=150 TESTS="test_cuda" RACECHECK=1 EXTRA_N=3,5,6,7,12 \
  bash bench/device_run.sh --dtypes f32 --budget-ms 15
