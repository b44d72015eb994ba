#!/bin/bash
# Nsight Compute on the resident-strip kernel: the tall layer (33288 x 512, 0.95) and 2048 x 512 at 0.98, N = 256
set -u
B=/tmp/loom-tc-build; mkdir -p $B
NVCC=nvcc; command -v nvcc >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
export PATH=$(dirname $NVCC):$PATH
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -lineinfo"
t0=$(date +%s)
( $NVCC $ARCH $FLAGS -DLOOMTC_TUNING -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tune.o || echo FAIL tune ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o || echo FAIL tiles ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( $NVCC $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
wait
$NVCC $ARCH -o $B/tcb $B/tc_bench.o $B/tune.o $B/tc_tiles.o $B/tc_model.o -lcusparse -lcublas -lz || { echo FAIL link; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for p in a b; do
  $B/tcb --dlmc .tc-gpu/prof_$p --n 256 --only-tc --reps 10 2>&1 | grep -E "^transformer" | cut -c1-200
  timeout 150 ncu --clock-control none --kernel-name regex:tc_resident_kernel --launch-skip 2 --launch-count 1 --set full --import-source yes \
      -o $OUT/prof_$p $B/tcb --dlmc .tc-gpu/prof_$p --n 256 --only-tc --reps 1 --batches 1 > $OUT/ncu_$p.log 2>&1
  echo "ncu $p rc=$? $(( $(date +%s) - t0 )) s"
  ncu -i $OUT/prof_$p.ncu-rep --page details > $OUT/details_$p.txt 2>&1
  ncu -i $OUT/prof_$p.ncu-rep --page source --csv --print-source sass > $OUT/source_$p.csv 2>&1 || echo "source page failed"
  grep -E "Duration|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|L1/TEX Hit|L2 Hit|Memory Throughput|Registers|Stall" $OUT/details_$p.txt | head -30
done
gzip -f $OUT/*.csv $OUT/*.txt
tar czf $OUT/prof.tgz -C $OUT $(cd $OUT && ls | grep -v prof.tgz) && find $OUT -type f ! -name prof.tgz -delete
