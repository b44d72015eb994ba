#!/bin/bash
# session 46 call 6 (H200): the code to land, call 5's v5 (main's feed,
# rx_single for rows of one chunk, parts_of without its loop, the feed's
# and the walk's indices in 32 bits), against main at 7fc7654 (baseline14)
# in one process: test_tc, all 452 DLMC layers at N = 64, 256, 512
# (tensor cores only); memcheck on the rows form.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline14.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c6; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline14 \
    BENCH_ARGS="--n 64,256,512 --only-tc" BENCH_BUDGET=40 OUT=$O/all bash bench/tc_gpu_run.sh > $O/all_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/all_console.txt | head -16
sed -n '/^against the baseline/,/^summary/p' $O/all/tc_bench.txt | grep " all " | head -4
B=/tmp/loom-tc-build
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
left=$(( 330 - $(el) ))
if [ $left -ge 20 ]; then
  LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-} LOOM_TC_TEST_FORM=rows \
      timeout $left $CS --tool memcheck --leak-check full $B/test_tc > $O/memcheck_rows.txt 2>&1
  echo "memcheck rc=$? at $(el)s"; grep -E "ERROR SUMMARY|LEAK SUMMARY|\[ *(OK|FAILED|PASSED) *\]" $O/memcheck_rows.txt | tail -11
else echo "no time for memcheck"; fi
cp $B/tc_spmm.ptxas.log $O/ 2>/dev/null
gzip -f $O/*/*.csv $O/*/*.txt $O/*.txt $O/*.log 2>/dev/null
gunzip $O/device.txt.gz $O/all_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c6.tgz -C /tmp c6
echo "done at $(el)s"
