#!/bin/bash
# device: where the tiles form's fixed cost goes - old (A), new (B), new with an empty body (E):
# event timing, ncu kernel durations, nsys gaps, on 3 layers at N = 256
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/p3; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
sed '/extern __shared__ __align__(16) uint16_t smem\[\];/a\    if (p.m >= 0) return;' backends/cuda/tc_tiles.cu > $B/empty.cu
grep -c "if (p.m >= 0) return" $B/empty.cu
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc_spmm ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
( nvcc $ARCH $FLAGS $INC -c .tc-gpu/old_tiles.cu -o $B/tA.o || echo FAIL A ) &
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tB.o || echo FAIL B ) &
( nvcc $ARCH $FLAGS $INC -c $B/empty.cu -o $B/tE.o || echo FAIL E ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/m.o ) &
wait
for v in A B E; do nvcc $ARCH -o $B/b$v $B/tc_bench.o $B/tc_spmm.o $B/t$v.o $B/m.o -lcusparse -lcublas -lz || echo FAIL link $v; done
for v in A B E A B E; do echo "== $v"; $B/b$v --dlmc .tc-gpu/prof3 --n 256 --reps 50 --only-tc 2>&1 | grep -E "^(rn50|transformer)" | cut -c1-20,60-; done
for v in A B; do
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__grid_size,launch__cluster_dim_z --csv \
     -k regex:"tiles_kernel|tc_spmm_kernel|tc_resident" $B/b$v --dlmc .tc-gpu/prof3 --n 256 --reps 2 --only-tc > $OUT/ncu_$v.csv 2>&1
  echo "ncu $v rc=$? lines $(wc -l < $OUT/ncu_$v.csv)"
done
if command -v nsys >/dev/null; then
  for v in A B E; do
    timeout 100 nsys profile -t cuda -o $B/ns_$v $B/b$v --dlmc .tc-gpu/prof3 --n 256 --reps 50 --only-tc > /dev/null 2>&1
    nsys stats -r cuda_gpu_trace -f csv -o $OUT/ns_$v $B/ns_$v.nsys-rep > /dev/null 2>&1; echo "nsys $v: $(ls $OUT | grep ns_$v)"
  done
else echo "no nsys"; fi
