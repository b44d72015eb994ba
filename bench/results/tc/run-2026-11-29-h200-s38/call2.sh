#!/bin/bash
# session 38 call 2 (H200): Nsight Compute on the gather kernel (512 x 2048
# at 0.95, N = 256: the largest group of layers where cuBLAS f16 still wins)
# and on the new resident kernel (33288 x 512 at 0.95).  Carry .devrun/dlmc.npz.xz.
set -u
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c2; O=$OUT/c2
D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
xz -dc .devrun/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc
S=.tc-gpu/dlmc
mkdir -p .tc-gpu/prof_a/rn50/magnitude_pruning/0.95 .tc-gpu/prof_b/transformer/magnitude_pruning/0.95 .tc-gpu/prof_c/transformer/magnitude_pruning/0.95
cp $S/rn50/magnitude_pruning/0.95/bottleneck_1_block_group4_1_1.smtx .tc-gpu/prof_a/rn50/magnitude_pruning/0.95/
cp $S/transformer/magnitude_pruning/0.95/body_decoder_layer_0_ffn_conv2_fully_connected.smtx .tc-gpu/prof_b/transformer/magnitude_pruning/0.95/
cp $S/transformer/magnitude_pruning/0.95/symbol_modality_33288_512_shared_.smtx .tc-gpu/prof_c/transformer/magnitude_pruning/0.95/
B=/tmp/loom-tc-build; mkdir -p $B
NVCC=nvcc; command -v nvcc >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
export PATH=$(dirname $NVCC):$PATH
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -lineinfo"
( $NVCC $ARCH $FLAGS -DLOOMTC_TUNING -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tune.o || echo FAIL tune ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o || echo FAIL tiles ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( $NVCC $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
wait
$NVCC $ARCH -o $B/tcb $B/tc_bench.o $B/tune.o $B/tc_tiles.o $B/tc_model.o -lcusparse -lcublas -lz || { echo FAIL link; exit 1; }
echo "build at $(el) s"
for p in a b c; do
  K=tc_spmm_kernel; [ $p = c ] && K=tc_resident_kernel
  $B/tcb --dlmc .tc-gpu/prof_$p --n 256 --only-tc --reps 10 2>&1 | grep -E "^(rn50|transformer)" | cut -c1-220
  timeout 150 ncu --clock-control none --kernel-name regex:$K --launch-skip 1 --launch-count 1 --set full --import-source yes \
      -o $O/prof_$p $B/tcb --dlmc .tc-gpu/prof_$p --n 256 --only-tc --reps 1 --batches 1 > $O/ncu_$p.log 2>&1
  echo "ncu $p rc=$? at $(el) s"
  ncu -i $O/prof_$p.ncu-rep --page details > $O/details_$p.txt 2>&1
  ncu -i $O/prof_$p.ncu-rep --page source --csv --print-source cuda > $O/source_cuda_$p.csv 2>&1 || echo "source page failed"
  ncu -i $O/prof_$p.ncu-rep --page source --csv --print-source sass > $O/source_sass_$p.csv 2>&1 || echo "sass page failed"
  grep -E "tc_spmm_kernel|tc_resident|Duration|Elapsed Cycles|SM Active|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|Theoretical Occ|L1/TEX Hit|L2 Hit|Registers Per|Block Size|Grid Size|Dynamic Shared|Executed Instructions  " $O/details_$p.txt | head -24
done
rm -f $O/*.ncu-rep
gzip -f $O/*.csv $O/*.txt
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
