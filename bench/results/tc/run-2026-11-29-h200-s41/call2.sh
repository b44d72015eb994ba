#!/bin/bash
# session 41 call 2 (H200): the resident-strip kernel as one block of 16
# warps a multiprocessor (trial_rx16.patch: the working tree) against main's
# two blocks of 8 (the baseline, main's tc_spmm.cu, timed in the same
# tc_bench process and compared bit for bit), every DLMC layer at N = 128,
# 256, 512; test_tc on the trial kernel.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline6.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c2; mkdir -p $O
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc
echo "DLMC layers: $(find .tc-gpu/dlmc -name '*.smtx' | wc -l) at $(el)s"
SKIP_PROBE=1 TC_BASELINE=$R/baseline6 BENCH_ARGS="--n 128,256,512" BENCH_BUDGET=280 OUT=$O/tc bash bench/tc_gpu_run.sh > $O/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|baseline" $O/tc_console.txt | head -20
sed -n '/^against the baseline/,/^summary/p' $O/tc/tc_bench.txt | head -30
sed -n '/^auto/,$p' $O/tc/tc_bench.txt | head -24
gzip -9 $O/tc/tc_bench.txt $O/tc/tc_bench.csv 2>/dev/null
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
