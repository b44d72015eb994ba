#!/bin/bash
# session 47 call 6 (H200): the register part of call 2 alone (the halving
# tree run as the parts come in rx_row and rx_spread; one accumulator set
# in rx_pair and rx_single; strips of 64 and 32 as before), against main
# at 72044de (baseline16) in one process, timed as CUDA graphs (--graph:
# the GPU's time, which a loop of 3-5 us calls hides behind loom's host
# work): test_tc, all 452 layers at N = 64, 256, 512 (tensor cores only);
# then N = 256 as a loop; memcheck on the rows form.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline16.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c6; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline16 \
    BENCH_ARGS="--n 64,256,512 --only-tc --graph" BENCH_BUDGET=60 OUT=$O/all bash bench/tc_gpu_run.sh > $O/all_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/all_console.txt | head -16
sed -n '/^against the baseline/,/^summary/p' $O/all/tc_bench.txt | grep " all " | head -4
B=/tmp/loom-tc-build
timeout 60 $B/tc_bench --dlmc /tmp/dlmc_all --n 256 --only-tc --reps 10 --budget 50 --csv $O/loop256.csv > $O/loop256.txt 2>&1
echo "loop N=256 rc=$? at $(el)s"; sed -n '/^against the baseline/,/^summary/p' $O/loop256.txt | grep " all " | head -2
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
left=$(( 430 - $(el) ))
if [ $left -ge 20 ]; then
  LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-} LOOM_TC_TEST_FORM=rows \
      timeout $left $CS --tool memcheck --leak-check full $B/test_tc > $O/memcheck_rows.txt 2>&1
  echo "memcheck rc=$? at $(el)s"; grep -E "ERROR SUMMARY|LEAK SUMMARY|\[ *(OK|FAILED|PASSED) *\]" $O/memcheck_rows.txt | tail -11
else echo "no time for memcheck"; fi
cp $B/tc_spmm.ptxas.log $O/ 2>/dev/null
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt $O/*.log 2>/dev/null
gunzip $O/device.txt.gz $O/all_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c6.tgz -C /tmp c6
echo "done at $(el)s"
