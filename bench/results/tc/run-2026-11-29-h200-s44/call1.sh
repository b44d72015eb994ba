#!/bin/bash
# session 44 call 1 (H200): the resident kernel's spread rows (a long row's
# 8 parts as 8 records, summed into the workspace) and its snake deal of a
# longest-first record list, against main at d9ecca7 (baseline11) in the
# same tc_bench process.  A -DLOOMTC_TUNING build, so the knobs can be
# turned off one at a time: LOOMTC_RX_SNAKE=0 (rounds dealt forwards),
# LOOMTC_RX_SPREAD_GROUPS=0 (no row spread), and the spread bounds moved.
# Then the comparison (cuSPARSE, cuBLAS) on all 452 layers, N = 256.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline11.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c1; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_long --max-row-over 100 | tail -1
echo "unpacked at $(el)s"
LOOM_DLMC=/tmp/dlmc_all TC_FLAGS="-DLOOMTC_TUNING" SKIP_PROBE=1 TC_BASELINE=$R/baseline11 \
    BENCH_ARGS="--n 64,128,256,512 --only-tc" BENCH_BUDGET=120 OUT=$O/all bash bench/tc_gpu_run.sh > $O/all_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/all_console.txt | head -16
grep -E "spread" $O/all/test_tc.txt | head -20
sed -n '/^against the baseline/,/^summary/p' $O/all/tc_bench.txt | head -17
B=/tmp/loom-tc-build/tc_bench
for v in LOOMTC_RX_SNAKE=0 LOOMTC_RX_SPREAD_GROUPS=0 LOOMTC_RX_SPREAD_GROUPS=16 LOOMTC_RX_SPREAD_GROUPS=4 LOOMTC_RX_SPREAD_MEAN=3; do
  n=$(echo $v | tr '=' '_')
  env $v timeout 80 $B --dlmc /tmp/dlmc_long --only-tc --n 64,256,512 --reps 10 --budget 60 --csv $O/$n.csv > $O/$n.txt 2>&1
  echo "$v rc=$? at $(el)s"
  sed -n '/^against the baseline/,/^summary/p' $O/$n.txt | grep " all " | head -3
done
if [ $(el) -lt 330 ]; then
  timeout 200 $B --dlmc /tmp/dlmc_all --n 256 --reps 10 --budget 180 --csv $O/full256.csv > $O/full256.txt 2>&1
  echo "full N=256 rc=$? at $(el)s"
  sed -n '/^auto/,$p' $O/full256.txt | head -12
fi
cp /tmp/loom-tc-build/tc_spmm.ptxas.log $O/ 2>/dev/null
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt $O/*.log 2>/dev/null
gunzip $O/device.txt.gz $O/all_console.txt.gz 2>/dev/null
echo "done at $(el)s"
