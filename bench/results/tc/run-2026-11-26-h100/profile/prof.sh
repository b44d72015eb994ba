#!/bin/bash
# device: build tc_bench (nvcc), time the DLMC subset at N = 256, ncu the gather kernel on two losers
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/tcb; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
( nvcc $ARCH $FLAGS -Xptxas -v $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o > $B/ptxas.log 2>&1 || echo FAIL tc_spmm ) &
( nvcc $ARCH $FLAGS $INC -c backends/cuda/spmm_f32.cu -o $B/spmm_f32.o > $B/f32.log 2>&1 || echo FAIL spmm_f32 ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
wait
nvcc $ARCH -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz || echo FAIL link
echo "built at $(( $(date +%s) - T0 ))s"; grep -A1 "tc_spmm_kernel" $B/ptxas.log | grep -E "registers|spill" | sort | uniq -c | head
$B/tc_bench --dlmc .tc-gpu/sub --n 256 --reps 20 --csv $OUT/sub.csv > $OUT/sub.txt 2>&1; echo "bench rc=$? at $(( $(date +%s) - T0 ))s"
for d in one one2; do
  timeout 150 ncu --clock-control none -k regex:tc_spmm_kernel --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats \
    --section Occupancy --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis_Tables \
    $B/tc_bench --dlmc .tc-gpu/$d --n 256 --reps 2 --only-tc > $OUT/ncu_$d.txt 2>&1
  echo "ncu $d rc=$? at $(( $(date +%s) - T0 ))s"
done
cuobjdump -sass $B/tc_spmm.o > $B/sass.txt 2>/dev/null; gzip -c $B/sass.txt > $OUT/sass.txt.gz
cat $OUT/sub.txt | cut -c1-200
