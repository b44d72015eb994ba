#!/bin/bash
# device: ncu source page (sampling every 32 cycles) of the committed tiles kernel on a 64 x 256 and a
# 512 x 512 layer at N = 256, caches not flushed; plus the stall-reason breakdown
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/p4; mkdir -p $B; T0=$(date +%s)
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -lineinfo"
( nvcc $ARCH $FLAGS -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc_spmm ) &
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o || echo FAIL tiles ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/m.o ) &
wait
nvcc $ARCH -o $B/tcb $B/tc_bench.o $B/tc_spmm.o $B/tc_tiles.o $B/m.o -lcusparse -lcublas -lz || echo FAIL link
echo "built at $(( $(date +%s) - T0 ))s"
for d in ptiny p512; do
  timeout 150 ncu --cache-control none --clock-control none --warp-sampling-interval 0 -k regex:tiles_kernel --launch-skip 6 --launch-count 1 \
      --section SourceCounters --section WarpStateStats --section SpeedOfLight -o $B/rep_$d \
      $B/tcb --dlmc .tc-gpu/$d --n 256 --reps 8 --only-tc > $OUT/ncu_log_$d.txt 2>&1
  ncu --import $B/rep_$d.ncu-rep --page source --print-source sass --csv > $OUT/src_$d.csv 2>&1
  ncu --import $B/rep_$d.ncu-rep --page details > $OUT/details_$d.txt 2>&1
  echo "ncu $d: $(wc -l < $OUT/src_$d.csv) lines at $(( $(date +%s) - T0 ))s"
done
