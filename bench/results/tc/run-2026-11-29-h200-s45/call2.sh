#!/bin/bash
# session 45 call 2 (H200): call 1's code (trial_spread_block.patch) with
# rx_try's rule on top: a launch spreads the plan's rows only where the
# longest has RX_SPREAD_OVER_LOAD = 2 warps' shares of the non-zeros (call
# 1 lost 2-8% where it had fewer), test_spread's second matrix made to
# clear that bound, and racecheck on test_spread alone (LOOM_TC_TEST_ONLY;
# call 1's full racecheck ran out of time before it).  Call 1's header:
# the spread rows inside the block (rx_spread):
# a block first runs its share of the longest rows, a row's 8 parts on 8
# warps, the sums meeting in shared memory (no workspace, no count-in at
# GPU scope: calls 2-3's cost), then its walk without them.  Plain build
# against main at d9ecca7 in one process: test_tc (with test_spread), all
# 452 layers at N = 64, 128, 512 (tensor cores only) and at N = 256 with
# cuSPARSE and cuBLAS; then memcheck and racecheck on test_tc's rows form.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline11.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c2; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
echo "unpacked at $(el)s"
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline11 \
    BENCH_ARGS="--n 64,128,512 --only-tc" BENCH_BUDGET=70 OUT=$O/all bash bench/tc_gpu_run.sh > $O/all_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/all_console.txt | head -16
grep -E "spread" $O/all/test_tc.txt | head -16
sed -n '/^against the baseline/,/^summary/p' $O/all/tc_bench.txt | head -13
B=/tmp/loom-tc-build
timeout 90 $B/tc_bench --dlmc /tmp/dlmc_all --n 256 --reps 10 --budget 80 --csv $O/full256.csv > $O/full256.txt 2>&1
echo "full N=256 rc=$? at $(el)s"
sed -n '/^against the baseline/,/^summary/p' $O/full256.txt | head -5
sed -n '/^auto/,$p' $O/full256.txt | head -12
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  left=$(( 405 - $(el) )); [ $left -lt 30 ] && { echo "no time for $tool"; continue; }
  extra=""; [ $tool = memcheck ] && extra="--leak-check full"
  only=""; [ $tool = racecheck ] && only=test_spread
  LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-} LOOM_TC_TEST_ONLY=$only LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$REPO/bench/results/tc/model.txt \
      timeout $left $CS --tool $tool $extra $B/test_tc > $O/${tool}_rows.txt 2>&1
  echo "$tool rc=$? at $(el)s"; grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|\[ *(OK|FAILED|PASSED) *\]" $O/${tool}_rows.txt | tail -11
done
cp $B/tc_spmm.ptxas.log $O/ 2>/dev/null
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt $O/*.log 2>/dev/null
gunzip $O/device.txt.gz $O/all_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c2.tgz -C /tmp c2
echo "done at $(el)s"
