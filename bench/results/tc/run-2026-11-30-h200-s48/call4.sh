#!/bin/bash
# session 48 call 4 (H200): (1) graph_floor: what an empty kernel node
# costs in a graph of back-to-back launches, plain and by PDL; (2) Nsight
# Compute (full set, caches and clocks left alone) on loom's rows-form
# kernels and cuBLAS's GEMM for two 512 x 512 DLMC layers (0.95, 0.98) at
# N = 256, the shape of 216 of the 452 layers.  main at 027f6dc.
# Carry: .devrun/dlmc.npz.xz.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c4; mkdir -p $O
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-30-h200-s48
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc); export PATH=$(dirname $NV):$PATH
B=/tmp/b4; mkdir -p $B
A="-gencode=arch=compute_90,code=sm_90"
F="$A -std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
( $NV -arch=sm_90 -O2 $D/graph_floor.cu -o $B/graph_floor &
  $NV $F -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o &
  $NV $F $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o &
  gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o &
  $NV $A -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o &
  wait ) > $O/build.log 2>&1
$NV $A -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/tc_tiles.o $B/tc_model.o -lcusparse -lcublas -lz >> $O/build.log 2>&1
echo "built at $(el)s: $(ls $B/tc_bench $B/graph_floor 2>&1 | tr '\n' ' ')"
$B/graph_floor > $O/graph_floor.txt 2>&1; cat $O/graph_floor.txt
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for sp in 0.95 0.98; do
  mkdir -p /tmp/sel$sp
  f=$(find /tmp/dlmc_all -path "*/transformer/*/$sp/*" -name "body_decoder_layer_0_encdec_attention_multihead_attention_k_fully_connected*.smtx" | head -1)
  echo "layer: $f"; cp $f /tmp/sel$sp/
  timeout 40 $B/tc_bench --smtx /tmp/sel$sp --n 256 --reps 10 --graph > $O/graph_$sp.txt 2>&1
  grep -E "^\S+ +$sp" $O/graph_$sp.txt | head -3
  timeout 150 $NCU --clock-control none --cache-control none --set full -c 8 \
      --kernel-name regex:"tc_spmm_kernel|tc_resident_kernel|nvjet|gemm" --csv --page details \
      $B/tc_bench --smtx /tmp/sel$sp --n 256 --reps 2 --batches 1 > $O/ncu_$sp.csv 2> $O/ncu_$sp.err
  echo "ncu $sp rc=$? at $(el)s"
  grep -E '"Duration"|"Registers Per Thread"|"Grid Size"|"Achieved Occupancy"' $O/ncu_$sp.csv | awk -F'","' '{print $5" | "$(NF-2)" "$(NF-1)" "$NF}' | cut -c1-150 | head -24
done
gzip -f $O/*.csv $O/*.txt 2>/dev/null; gunzip $O/device.txt.gz $O/graph_floor.txt.gz
mkdir -p $OUT && tar czf $OUT/c4.tgz -C /tmp c4
echo "done at $(el)s"
