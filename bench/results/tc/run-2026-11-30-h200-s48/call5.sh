#!/bin/bash
# session 48 call 5 (H200): as call 1, at N = 64 and 512: the tensor-core
# kernels by PDL (main at 027f6dc): test_tc, then all
# 452 DLMC layers at N = 64 and 512, every method, as CUDA graphs, main against
# the previous main (baseline17 = f2f5952's tc_spmm.cu) in one process;
# no loop run, no memcheck (call 1 has them).
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline17.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c5; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline17 \
    BENCH_ARGS="--n 64,512 --graph" BENCH_BUDGET=170 OUT=$O/graph bash bench/tc_gpu_run.sh > $O/graph_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled|graph capture" $O/graph_console.txt | head -20
grep -E "calls in a row" $O/graph/test_tc.txt | head -8
sed -n '/^against the baseline/,/^summary/p' $O/graph/tc_bench.txt | head -10
sed -n "/^auto/,\$p" $O/graph/tc_bench.txt | head -20
B=/tmp/loom-tc-build
export LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt 2>/dev/null
gunzip $O/device.txt.gz $O/graph_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c5.tgz -C /tmp c5
echo "done at $(el)s"
