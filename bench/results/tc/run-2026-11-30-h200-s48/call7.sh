#!/bin/bash
# session 48 call 7 (H200): the early trigger only where K <= 512
# (trial_krule.patch; calls 1-6 found the early placement losing 3-8% on
# shapes of K 1024-4608 and gaining most up to 512).  test_tc on it, then
# all layers at N = 64 and 256 as graphs, tensor cores only, against
# baseline17 (no PDL).  Also the first call through tc_gpu_run.sh's own
# LOOM_DLMC=archive and CMOCKA_DIR (57e8a16).
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline17, .devrun/var_krule.
set -u
export OUT=${OUT:-/tmp/out}
cp .devrun/var_krule/tc_spmm.cu backends/cuda/tc_spmm.cu
LOOM_DLMC=.devrun/dlmc.npz.xz CMOCKA_DIR=.devrun/cmocka SKIP_PROBE=1 TC_BASELINE=.devrun/baseline17 \
    BENCH_ARGS="--n 64,256 --graph --only-tc" BENCH_BUDGET=45 OUT=$OUT/c7 bash bench/tc_gpu_run.sh
