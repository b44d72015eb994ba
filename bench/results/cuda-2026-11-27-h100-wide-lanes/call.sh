#!/bin/bash
# session 26 call 1: RB + PR lanes across warps (64-256): test_cuda (full),
# test_tc (the resident bound of 754e850), gpu_bench N = 1..64 with the new
# candidates beside the old (one build, one process).
export OUT=${OUT:-/tmp/out}
LIMIT=450 TEST_TIMEOUT=200 TESTS="test_cuda test_tc" BENCH_TIMEOUT=260 \
  bash bench/device_run.sh --dtypes f32 --budget-ms 15 --n 1,2,4,8,16,32,64 --rmat 1e6,1e7
