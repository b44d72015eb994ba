#!/bin/bash
# device: ncu source-level profile of the tiles kernel (one layer)
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/tcs; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -lineinfo"
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc_spmm ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/t.o || echo FAIL tiles ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/m.o ) &
wait
nvcc $ARCH -o $B/b $B/tc_bench.o $B/tc_spmm.o $B/t.o $B/m.o -lcusparse -lcublas -lz || echo FAIL link
timeout 120 ncu --clock-control none -k regex:tiles_kernel --launch-skip 2 --launch-count 1 --section SpeedOfLight --section SourceCounters --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis -o $OUT/rep \
    $B/b --dlmc ${DL:-.tc-gpu/one} --n 256 --reps 2 --only-tc > $OUT/ncu_log.txt 2>&1
ncu --import $OUT/rep.ncu-rep --page source --print-source sass --csv > $OUT/src.csv 2>&1
ncu --import $OUT/rep.ncu-rep --page details > $OUT/details.txt 2>&1
rm -f $OUT/rep.ncu-rep
grep -E "Duration|Elapsed Cycles|SM Active|Issued Warp|Active Warps|Eligible Warps|Warp Cycles Per Issued|L2 Hit|L1/TEX Hit|Memory Throughput" $OUT/details.txt
