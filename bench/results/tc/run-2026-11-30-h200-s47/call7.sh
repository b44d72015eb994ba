#!/bin/bash
# session 47 call 7 (H200): two review edits (the feed reads p.m where it
# kept its own copy; rx_spread loads its chunk element with rx_element),
# same registers, PTX changed: test_tc, all 452 layers at N = 256 as CUDA
# graphs against main at 72044de (baseline16) in one process, memcheck on
# test_spread (the rows form).  Short, to fit the device time left.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline16.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c7; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline16 \
    BENCH_ARGS="--n 256 --only-tc --graph" BENCH_BUDGET=25 OUT=$O/all bash bench/tc_gpu_run.sh > $O/all_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/all_console.txt | head -16
sed -n '/^against the baseline/,/^summary/p' $O/all/tc_bench.txt | head -5
B=/tmp/loom-tc-build
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-} LOOM_TC_TEST_FORM=rows LOOM_TC_TEST_ONLY=test_spread \
    timeout 40 $CS --tool memcheck --leak-check full $B/test_tc > $O/memcheck_spread.txt 2>&1
echo "memcheck rc=$? at $(el)s"; grep -E "ERROR SUMMARY|LEAK SUMMARY|\[ *(OK|FAILED|PASSED) *\]" $O/memcheck_spread.txt | tail -4
gzip -f $O/*/*.csv $O/*/*.txt $O/*.txt 2>/dev/null
gunzip $O/device.txt.gz $O/all_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c7.tgz -C /tmp c7
echo "done at $(el)s"
