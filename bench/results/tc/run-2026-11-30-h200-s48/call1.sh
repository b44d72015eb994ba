#!/bin/bash
# session 48 call 1 (H200): the tensor-core kernels launched by programmatic
# dependent launch (pdl.cuh): test_tc (with the new test_chained), then all
# 452 DLMC layers at N = 256, every method, as CUDA graphs, main against
# the previous main (baseline17 = f2f5952's tc_spmm.cu) in one process;
# then the plain loop of calls, tensor cores only; memcheck on test_chained.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline17.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c1; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline17 \
    BENCH_ARGS="--n 256 --graph" BENCH_BUDGET=110 OUT=$O/graph bash bench/tc_gpu_run.sh > $O/graph_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled|graph capture" $O/graph_console.txt | head -20
grep -E "calls in a row" $O/graph/test_tc.txt | head -8
sed -n '/^against the baseline/,/^summary/p' $O/graph/tc_bench.txt | head -6
sed -n '/^auto/,$p' $O/graph/tc_bench.txt | head -12
B=/tmp/loom-tc-build
export LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
timeout 70 $B/tc_bench --dlmc /tmp/dlmc_all --reps 10 --budget 55 --n 256 --only-tc --csv $O/loop256.csv > $O/loop256.txt 2>&1
echo "loop rc=$? at $(el)s"
sed -n '/^against the baseline/,/^summary/p' $O/loop256.txt | head -6
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
LOOM_TC_TEST_ONLY=test_chained timeout 60 $CS --tool memcheck --leak-check full $B/test_tc > $O/memcheck_chained.txt 2>&1
echo "memcheck rc=$? at $(el)s"; grep -E "ERROR SUMMARY|LEAK SUMMARY|calls in a row|\[ *(OK|FAILED|PASSED) *\]" $O/memcheck_chained.txt | tail -9
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt 2>/dev/null
gunzip $O/device.txt.gz $O/graph_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c1.tgz -C /tmp c1
echo "done at $(el)s"
