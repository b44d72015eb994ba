#!/bin/bash
# device: ncu of the new gather kernel on two large layers (N = 256), with source-level stall counters
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/tcb; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -lineinfo"
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc_spmm ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
wait
nvcc $ARCH -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/tc_model.o -lcusparse -lcublas -lz || echo FAIL link
for d in one one2; do
  timeout 150 ncu --clock-control none -k regex:tc_spmm_kernel --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats \
    --section Occupancy --section SchedulerStats --section SourceCounters --print-details all \
    $B/tc_bench --dlmc .tc-gpu/$d --n 256 --reps 2 --only-tc > $OUT/ncu2_$d.txt 2>&1
  echo "ncu $d rc=$?"; grep -E "Duration|SM Active Cycles|Elapsed Cycles|L2 Cache Throughput|Issued Warp Per|Achieved Active Warps|Grid Size" $OUT/ncu2_$d.txt
done
