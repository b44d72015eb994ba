#!/bin/bash
# session 29 call 3: the CUDA record of the sweep commit (narrow EB + SR
# sweeps its short rows; short pairs through L1 where A is small)
# on the H100, f32: test_cuda, gpu_bench (+ N = 3,5,6,7,12), memcheck and
# racecheck while the limit allows.
export OUT=${OUT:-/tmp/out}
LIMIT=570 BENCH_TIMEOUT=330 TEST_TIMEOUT=150 TESTS="test_cuda" EXTRA_N=3,5,6,7,12 RACECHECK=1 \
  bash bench/device_run.sh --dtypes f32 --budget-ms 15
