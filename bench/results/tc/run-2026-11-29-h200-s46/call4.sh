#!/bin/bash
# session 46 call 4 (H200): v4 = call 3's v1 (main's feed, rx_single,
# parts_of without its loop) with two chunks in flight (rx_take: registers
# taken in turn), against main at 7fc7654 (baseline14) in one process:
# test_tc, all 452 DLMC layers at N = 64, 128, 512 (tensor cores only) and
# at N = 256 with cuSPARSE and cuBLAS; v1 again beside it (same machine);
# memcheck on the rows form, racecheck on test_spread.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline14, .devrun/var_v1.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c4; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
echo "unpacked at $(el)s"
# v1's tc_bench, built beside the main build
V=/tmp/v1-build; mkdir -p $V
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
A="-gencode=arch=compute_90,code=sm_90"
F="$A -std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
BASE=$R/baseline14
RENAME=$(grep -oE '^extern "C" [^(]*\bloomcu_tc_[a-z_0-9]+\(' $BASE/tc_spmm.cu | grep -oE 'loomcu_tc_[a-z_0-9]+' |
         sort -u | sed -E 's/^loomcu_tc_(.*)$/-Dloomcu_tc_\1=tcbase_\1/')
( ( $NV $F -DLOOMTC_ONLY_F16 -Dloomtc=loomtc_base $RENAME -I$BASE $INC -c $BASE/tc_spmm.cu -o $V/tc_base.o &
    $NV $F -DLOOMTC_ONLY_F16 $INC -c $R/var_v1/tc_spmm.cu -o $V/tc_v1.o &
    $NV $F $INC -c backends/cuda/tc_tiles.cu -o $V/tc_tiles.o &
    gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $V/tc_model.o &
    $NV $A -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_BASELINE -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $V/tc_bench.o &
    wait
    $NV $A -o $V/tcb_v1 $V/tc_bench.o $V/tc_v1.o $V/tc_tiles.o $V/tc_base.o $V/tc_model.o -lcusparse -lcublas -lz ) > $O/v1_build.log 2>&1 & )
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$BASE \
    BENCH_ARGS="--n 64,128,512 --only-tc" BENCH_BUDGET=70 OUT=$O/all bash bench/tc_gpu_run.sh > $O/all_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/all_console.txt | head -16
sed -n '/^against the baseline/,/^summary/p' $O/all/tc_bench.txt | grep " all " | head -4
B=/tmp/loom-tc-build
timeout 90 $B/tc_bench --dlmc /tmp/dlmc_all --n 256 --reps 10 --budget 80 --csv $O/full256.csv > $O/full256.txt 2>&1
echo "full N=256 rc=$? at $(el)s"
sed -n '/^against the baseline/,/^summary/p' $O/full256.txt | head -5
sed -n '/^auto/,$p' $O/full256.txt | head -12
for i in $(seq 1 30); do [ -x $V/tcb_v1 ] && break; sleep 2; done
timeout 40 $V/tcb_v1 --dlmc /tmp/dlmc_all --only-tc --n 64,256,512 --reps 10 --budget 35 --csv $O/v1.csv > $O/v1.txt 2>&1
echo "v1 rc=$? at $(el)s"; sed -n '/^against the baseline/,/^summary/p' $O/v1.txt | grep " all " | head -3
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  left=$(( 560 - $(el) )); [ $left -lt 30 ] && { echo "no time for $tool"; continue; }
  extra=""; [ $tool = memcheck ] && extra="--leak-check full"
  only=""; [ $tool = racecheck ] && only=test_spread
  LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-} LOOM_TC_TEST_ONLY=$only LOOM_TC_TEST_FORM=rows \
      timeout $left $CS --tool $tool $extra $B/test_tc > $O/${tool}_rows.txt 2>&1
  echo "$tool rc=$? at $(el)s"; grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|\[ *(OK|FAILED|PASSED) *\]" $O/${tool}_rows.txt | tail -11
done
cp $B/tc_spmm.ptxas.log $O/ 2>/dev/null
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt $O/*.log 2>/dev/null
gunzip $O/device.txt.gz $O/all_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c4.tgz -C /tmp c4
echo "done at $(el)s"
