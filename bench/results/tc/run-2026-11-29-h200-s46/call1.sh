#!/bin/bash
# session 46 call 1 (H200): where the resident kernel's instructions go,
# now (session 38's profile predates calls 3 of s38 and s41-s45).  Nsight
# Compute, N = 256, k16, on main's tc_resident_kernel for
#   (c) 33288 x 512 at 0.95 (81 us against cuBLAS's 18.5),
#   (d) 2048 x 512 at 0.95, encoder 4 ffn conv1 (11.1 us against 8.6),
# with per-SASS-line counts and the SASS's source lines (nvdisasm -g), so
# the counts can be summed per line of tc_spmm.cu.  Builds only tc_bench.
# Carry: .devrun/dlmc.npz.xz.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c1; mkdir -p $O
R=$(pwd)/.devrun; B=/tmp/loom-tc-build; mkdir -p $B
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
S=/tmp/dlmc_all/transformer/magnitude_pruning/0.95
for p in c d; do mkdir -p /tmp/prof_$p/transformer/magnitude_pruning/0.95; done
cp $S/symbol_modality_33288_512_shared_.smtx /tmp/prof_c/transformer/magnitude_pruning/0.95/
cp $S/body_encoder_layer_4_ffn_conv1_fully_connected.smtx /tmp/prof_d/transformer/magnitude_pruning/0.95/
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc); CB=$(dirname $NV)
A="-gencode=arch=compute_90,code=sm_90"
F="$A -std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -lineinfo"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
( $NV $F -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc ) &
( $NV $F $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o || echo FAIL tiles ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( $NV $A -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
wait
$NV $A -o $B/tcb $B/tc_bench.o $B/tc_spmm.o $B/tc_tiles.o $B/tc_model.o -lcusparse -lcublas -lz || { echo FAIL link; exit 1; }
echo "build at $(el) s"
$CB/cuobjdump -xelf all $B/tc_spmm.o > /dev/null 2>&1 && ls *.cubin > $O/cubins.txt 2>&1
for f in *.cubin; do $CB/nvdisasm -g -c $f > $O/${f%.cubin}.sass 2>&1; done; rm -f *.cubin
for p in c d; do
  $B/tcb --dlmc /tmp/prof_$p --n 256 --only-tc --reps 10 2>&1 | grep -E "^(transformer)" | cut -c1-220
  timeout 150 ncu --clock-control none --kernel-name regex:tc_resident_kernel --launch-skip 1 --launch-count 1 --set full --import-source yes \
      -o $O/prof_$p $B/tcb --dlmc /tmp/prof_$p --n 256 --only-tc --reps 1 --batches 1 > $O/ncu_$p.log 2>&1
  echo "ncu $p rc=$? at $(el) s"
  ncu -i $O/prof_$p.ncu-rep --page details > $O/details_$p.txt 2>&1
  ncu -i $O/prof_$p.ncu-rep --page source --csv --print-source cuda,sass > $O/source_cs_$p.csv 2>&1 || echo "cuda,sass page failed"
  ncu -i $O/prof_$p.ncu-rep --page source --csv --print-source sass > $O/source_sass_$p.csv 2>&1 || echo "sass page failed"
  grep -E "tc_resident|Duration|Elapsed Cycles|SM Active|Warp Cycles Per Issued|Issued Ipc|Achieved Occupancy|L1/TEX Hit|L2 Hit|Registers Per|Grid Size|Executed Instructions  " $O/details_$p.txt | head -16
  head -c 600 $O/source_cs_$p.csv; echo
done
rm -f $O/*.ncu-rep
gzip -f $O/*.csv $O/*.txt $O/*.sass 2>/dev/null
gunzip $O/device.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c1.tgz -C /tmp c1
echo "done at $(el)s"
