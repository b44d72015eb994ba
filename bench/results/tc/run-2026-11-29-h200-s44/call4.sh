#!/bin/bash
# session 44 call 4 (H200): the spread rows are not kept (calls 2-3); kept
# from them is the last segment's finish for rows of up to 8 segments, the
# sums loaded at once and added in registers (segment_output), which the
# gather kernel's segments (session 43) share.  Against main at d9ecca7
# in the same process: 9 graphs (bench/smtx_inputs.py: 5 of
# ../shared/data/bench, 4 R-MAT), N = 64 and 256; the 180 DLMC layers with
# a row past 100 non-zeros, N = 64, 256, 512; all 452 at N = 256 with
# cuSPARSE and cuBLAS; memcheck on test_tc's rows-form cases.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline11, .devrun/graphs.tar.xz.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c4; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
( cd /tmp && tar xJf $R/graphs.tar.xz )
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_long --max-row-over 100 | tail -1
echo "unpacked at $(el)s"
LOOM_DLMC=/tmp/dlmc_long SKIP_PROBE=1 TC_BASELINE=$R/baseline11 \
    BENCH_ARGS="--n 64,256,512 --only-tc" BENCH_BUDGET=60 OUT=$O/long bash bench/tc_gpu_run.sh > $O/long_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/long_console.txt | head -16
sed -n '/^against the baseline/,/^summary/p' $O/long/tc_bench.txt | grep " all "
B=/tmp/loom-tc-build
timeout 150 $B/tc_bench --smtx /tmp/graphs --only-tc --n 64,256 --budget 130 --csv $O/graphs.csv > $O/graphs.txt 2>&1
echo "graphs rc=$? at $(el)s"
grep -A1 -E "^(adder|rajat|email|facebook|wiki|rmat)" $O/graphs.txt | head -40
timeout 200 $B/tc_bench --dlmc /tmp/dlmc_all --n 256 --reps 10 --budget 180 --csv $O/full256.csv > $O/full256.txt 2>&1
echo "full N=256 rc=$? at $(el)s"
sed -n '/^against the baseline/,/^summary/p' $O/full256.txt | head -5
sed -n '/^auto/,$p' $O/full256.txt | head -12
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
left=$(( 540 - $(el) ))
if [ $left -gt 40 ]; then
  LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-} LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$REPO/bench/results/tc/model.txt \
      timeout $left $CS --tool memcheck --leak-check full $B/test_tc > $O/memcheck_rows.txt 2>&1
  echo "memcheck rc=$? at $(el)s"; grep -E "ERROR SUMMARY|LEAK SUMMARY|\[ *(OK|FAILED|PASSED) *\]" $O/memcheck_rows.txt | tail -10
fi
cp $B/tc_spmm.ptxas.log $O/ 2>/dev/null
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt $O/*.log 2>/dev/null
gunzip $O/device.txt.gz $O/long_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c4.tgz -C /tmp c4
echo "done at $(el)s"
