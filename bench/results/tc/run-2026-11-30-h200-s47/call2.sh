#!/bin/bash
# session 47 call 2 (H200): strips of 128 columns on tall matrices of no
# row of 8 parts (RX_WIDER; with it the halving tree run as the parts come
# and one accumulator set in rx_pair and rx_single, which lower the other
# widths' registers), built with -DLOOMTC_TUNING, against main at f37e4c9
# (baseline15) in one process: test_tc (with test_tall_short, which checks
# that the 128 strip ran), all 452 DLMC layers at N = 64, 256, 512 (tensor
# cores only); then LOOMTC_RX_W=128 (128 wherever the resident kernel runs
# and no row has 8 parts) at N = 256, 512; N = 256 with cuSPARSE and
# cuBLAS; memcheck on the rows form.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline15.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c2; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline15 TC_FLAGS=-DLOOMTC_TUNING \
    BENCH_ARGS="--n 64,256,512 --only-tc" BENCH_BUDGET=40 OUT=$O/all bash bench/tc_gpu_run.sh > $O/all_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/all_console.txt | head -16
grep -E "tall short" $O/all/test_tc.txt | head -8
sed -n '/^against the baseline/,/^summary/p' $O/all/tc_bench.txt | grep " all " | head -4
B=/tmp/loom-tc-build
LOOMTC_RX_W=128 timeout 60 $B/tc_bench --dlmc /tmp/dlmc_all --n 256,512 --only-tc --reps 10 --budget 50 --csv $O/w128.csv > $O/w128.txt 2>&1
echo "w128 rc=$? at $(el)s"; sed -n '/^against the baseline/,/^summary/p' $O/w128.txt | grep " all " | head -3
timeout 100 $B/tc_bench --dlmc /tmp/dlmc_all --n 256 --reps 10 --budget 90 --csv $O/full256.csv > $O/full256.txt 2>&1
echo "full N=256 rc=$? at $(el)s"
sed -n '/^against the baseline/,/^summary/p' $O/full256.txt | head -5
sed -n '/^auto/,$p' $O/full256.txt | head -12
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
left=$(( 540 - $(el) ))
if [ $left -ge 20 ]; then
  LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-} LOOM_TC_TEST_FORM=rows \
      timeout $left $CS --tool memcheck --leak-check full $B/test_tc > $O/memcheck_rows.txt 2>&1
  echo "memcheck rc=$? at $(el)s"; grep -E "ERROR SUMMARY|LEAK SUMMARY|\[ *(OK|FAILED|PASSED) *\]" $O/memcheck_rows.txt | tail -11
else echo "no time for memcheck"; fi
cp $B/tc_spmm.ptxas.log $O/ 2>/dev/null
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt $O/*.log 2>/dev/null
gunzip $O/device.txt.gz $O/all_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c2.tgz -C /tmp c2
echo "done at $(el)s"
