#!/bin/bash
# device: the tiles kernel with parts of its work switched off (diagnosis), then ncu source page
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/tcd; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -lineinfo"
T0=$(date +%s)
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc_spmm ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
for v in base NOSCATTER NOMMA NOCLEAN "NOSCATTER -DLOOMTT_DIAG_NOMMA -DLOOMTT_DIAG_NOCLEAN"; do
  n=$(echo $v | cut -d' ' -f1); [ "$v" != "$n" ] && n=ALL
  ( nvcc $ARCH $FLAGS $INC -DLOOMTT_DIAG_$v -c backends/cuda/tc_tiles.cu -o $B/tiles_$n.o || echo FAIL tiles $n ) &
done
wait
for n in base NOSCATTER NOMMA NOCLEAN ALL; do
  nvcc $ARCH -o $B/bench_$n $B/tc_bench.o $B/tc_spmm.o $B/tiles_$n.o $B/tc_model.o -lcusparse -lcublas -lz || echo FAIL link $n
done
echo "built at $(( $(date +%s) - T0 ))s"
for n in base NOSCATTER NOMMA NOCLEAN ALL; do
  $B/bench_$n --dlmc .tc-gpu/sub --n 256 --reps 20 --only-tc > $OUT/diag_$n.txt 2>&1
  echo "== $n"; awk -F'|' '/^(rn50|transformer)/ {split($1,a," "); split($2,b," "); printf "%-45s %5s %5s tiles %8s rows %8s\n", substr(a[1],1,45), a[3], a[4], b[3], b[1]}' $OUT/diag_$n.txt
done
echo "benches at $(( $(date +%s) - T0 ))s"
timeout 120 ncu --clock-control none -k regex:tiles_kernel --launch-skip 2 --launch-count 1 --section SourceCounters --section WarpStateStats --section SchedulerStats --section LaunchStats -o $OUT/tiles_rep \
    $B/bench_base --dlmc .tc-gpu/one --n 256 --reps 2 --only-tc > $OUT/ncu_log.txt 2>&1
ncu --import $OUT/tiles_rep.ncu-rep --page source --print-source sass --csv > $OUT/src.csv 2>&1
echo "ncu at $(( $(date +%s) - T0 ))s: $(wc -l < $OUT/src.csv) lines"
ncu --import $OUT/tiles_rep.ncu-rep --page details > $OUT/details.txt 2>&1
