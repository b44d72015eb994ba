#!/bin/bash
# session 48 call 2 (H200): where the gather kernel waits for the kernel
# before it.  "pre" (the file tested here) loads each warp's first row
# record before griddepcontrol.wait (the plan's records, which no kernel
# writes); "v1" (call 1's) waits first thing.  test_tc on pre; both timed
# as CUDA graphs at N = 64 and 256 against baseline17 (no PDL), tensor
# cores only, one after the other in one session.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline17,
# .devrun/var_pre, .devrun/var_v1pdl.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c2; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
cp $R/var_pre/tc_spmm.cu backends/cuda/tc_spmm.cu
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline17 TC_VARIANTS="v1=$R/var_v1pdl/tc_spmm.cu" \
    BENCH_ARGS="--n 64,256 --graph --only-tc" BENCH_BUDGET=75 OUT=$O/pre bash bench/tc_gpu_run.sh > $O/pre_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled|variant|graph capture" $O/pre_console.txt | head -20
grep -E "calls in a row" $O/pre/test_tc.txt | head -8
sed -n '/^against the baseline/,/^summary/p' $O/pre/tc_bench.txt | head -10
B=/tmp/loom-tc-build
export LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
timeout 110 $B/tc_bench_v1 --dlmc /tmp/dlmc_all --reps 10 --budget 75 --n 64,256 --graph --only-tc --csv $O/v1.csv > $O/v1.txt 2>&1
echo "v1 rc=$? at $(el)s"
sed -n '/^against the baseline/,/^summary/p' $O/v1.txt | head -10
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt 2>/dev/null
gunzip $O/device.txt.gz $O/pre_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c2.tgz -C /tmp c2
echo "done at $(el)s"
