#!/bin/bash
# session 38 call 8 (H200): rx_try takes the resident kernel wherever its
# strip fits (working tree) against the rule of 0add39a (the baseline, timed
# in the same tc_bench process and compared bit for bit), every DLMC layer
# at N = 128, 256, 512; test_tc.  Carry: .devrun/cmocka, .devrun/dlmc.npz.xz,
# .devrun/baseline4.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c8
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c8/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc
SKIP_PROBE=1 TC_BASELINE=$R/baseline4 BENCH_BUDGET=200 BENCH_ARGS="--n 128,256,512" OUT=$OUT/c8/tc \
    bash bench/tc_gpu_run.sh > $OUT/c8/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "build took|test_tc rc|SPILL|PASSED|FAILED|^baseline" $OUT/c8/tc_console.txt | head -12
sed -n '/^against the baseline/,/^summary/p' $OUT/c8/tc/tc_bench.txt | head -16
sed -n '/^auto/,$p' $OUT/c8/tc/tc_bench.txt | head -20
cd $OUT && tar czf c8.tgz c8 && rm -rf c8
