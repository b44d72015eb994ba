#!/bin/bash
# session 29 call 4: the same commit as ../cuda-2026-11-27-h100-record-s29/
# in double precision (the last full f64 run was on an H200 on 2026-11-22):
# test_cuda, then gpu_bench --dtypes f64 over every matrix and N.
export OUT=${OUT:-/tmp/out}
LIMIT=560 BENCH_TIMEOUT=380 TEST_TIMEOUT=150 TESTS="test_cuda" \
  bash bench/device_run.sh --dtypes f64 --budget-ms 15
