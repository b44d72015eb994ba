#!/bin/bash
# session 29 call 7: the CUDA record of the exchange commit (at N = 1 the
# narrow walk's long-segment groups pass their pairs through shared
# memory, not shuffles) on the H100, f32 and f64: test_cuda, gpu_bench
# (+ N = 3,5,6,7,12 in f32), memcheck and racecheck while the limit allows.
export OUT=${OUT:-/tmp/out}
LIMIT=585 BENCH_TIMEOUT=340 TEST_TIMEOUT=150 TESTS="test_cuda" EXTRA_N=3,5,6,7,12 RACECHECK=1 \
  bash bench/device_run.sh --dtypes f32,f64 --budget-ms 15
