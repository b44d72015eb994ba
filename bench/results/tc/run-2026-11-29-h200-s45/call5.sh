#!/bin/bash
# session 45 call 5 (H200): the resident kernel's strip copy by cp.async.cg
# (L2 only) instead of .ca: one block a multiprocessor reads each strip
# once, so caching it in L1 buys nothing.  Plain build against main at
# 8593880 (baseline13) in one process: test_tc, all 452 layers at N = 256
# and 512, tensor cores only.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline13.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c5; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline13 \
    BENCH_ARGS="--n 256,512 --only-tc" BENCH_BUDGET=60 OUT=$O/all bash bench/tc_gpu_run.sh > $O/all_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/all_console.txt | head -10
sed -n '/^against the baseline/,/^summary/p' $O/all/tc_bench.txt | head -9
gzip -f $O/*/*.csv $O/*/*.txt 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c5.tgz -C /tmp c5
echo "done at $(el)s"
