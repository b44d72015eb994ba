#!/bin/bash
# session 42 call 4 (H200): Nsight Compute on the resident-strip kernel of
# main at 005d2cc, f16 k16, N = 256, one launch each after warm-up, on
# two transformer layers at sparsity 0.95: decoder 0's ffn conv1
# (2048 x 512, strips of 64; cuBLAS's near-tie) and ffn conv2 (512 x 2048,
# strips of 32; cuBLAS 10.2 against 13.1 us).  Where does the kernel's
# time go: the strip copy before the first MMA, or the rows' chains?
# Carry: .devrun/cmocka (unused here), .devrun/dlmc.npz.xz.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c4; mkdir -p $O
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz /tmp/dlmc_all
B=/tmp/tcb; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -lineinfo"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc_spmm ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o || echo FAIL tiles ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/spmm_f32.cu -o $B/spmm_f32.o || echo FAIL spmm_f32 ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( $NVCC $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
wait
$NVCC $ARCH -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/tc_tiles.o $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz || echo FAIL link
echo "built at $(el)s"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || echo ncu)
for L in body_decoder_layer_0_ffn_conv1_fully_connected body_decoder_layer_0_ffn_conv2_fully_connected; do
  d=/tmp/one_$L/transformer/magnitude_pruning/0.95; mkdir -p $d
  cp $(find /tmp/dlmc_all -path "*/0.95/*" -name "$L.smtx*") $d/
  timeout 60 $B/tc_bench --dlmc /tmp/one_$L --n 256 --only-tc > $O/bench_$L.txt 2>&1
  grep -E "^transformer|rows|us" $O/bench_$L.txt | head -4
  timeout 200 $NCU --set full -k regex:tc_resident_kernel --launch-skip 2 -c 1 -o $O/ncu_$L \
      $B/tc_bench --dlmc /tmp/one_$L --n 256 --only-tc --reps 2 --batches 1 > $O/ncu_run_$L.txt 2>&1
  echo "ncu $L rc=$? at $(el)s"
  $NCU -i $O/ncu_$L.ncu-rep --page details > $O/details_$L.txt 2>&1
  $NCU -i $O/ncu_$L.ncu-rep --page source --csv --print-source sass > $O/sass_$L.csv 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Memory Throughput|L2 Cache Throughput|Shared Memory Config|Dynamic Shared|Executed Ipc A|Issue Slots Busy|No Eligible|Active Warps Per" $O/details_$L.txt | head -14
done
gzip -9 $O/*.csv $O/details_*.txt 2>/dev/null
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
