#!/bin/bash
# session 47 call 3 (H200): where a 10 us layer's time goes, and how much
# cuBLAS's time moves.  (1) tc_bench (main at f37e4c9, f16 kernels only)
# under Nsight Systems on three layers at N = 256 - 2048 x 512 and
# 512 x 2048 at 0.95, the 33288 x 512 embedding at 0.95 - for each
# kernel's GPU time beside the events' per-call time; (2) cublas_spread:
# tc_bench's cuBLAS call on fresh operands, 8 trials x 9 batches a shape.
# Carry: .devrun/dlmc.npz.xz.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c3; mkdir -p $O
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-30-h200-s47
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc); CB=$(dirname $NV)
export PATH=$CB:$PATH
B=/tmp/b3; mkdir -p $B
A="-gencode=arch=compute_90,code=sm_90"
F="$A -std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
( $NV $F -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o &
  $NV $F $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o &
  $NV $F $INC -c backends/cuda/spmm_f32.cu -o $B/spmm_f32.o &
  gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o &
  $NV $A -std=c++17 -O2 -Xcompiler -ffp-contract=off $INC -c bench/tc_bench.cu -o $B/tc_bench.o &
  $NV -arch=sm_90 -O2 $D/cublas_spread.cu -lcublas -o $B/cublas_spread &
  wait ) > $O/build.log 2>&1
$NV $A -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/tc_tiles.o $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz >> $O/build.log 2>&1
echo "built at $(el)s: $(ls $B/tc_bench $B/cublas_spread 2>&1 | tr '\n' ' ')"
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
mkdir -p /tmp/sel
for n in body_decoder_layer_0_ffn_conv1_fully_connected body_decoder_layer_0_ffn_conv2_fully_connected symbol_modality_33288; do
  f=$(find /tmp/dlmc_all -path '*/0.95/*' -name "$n*.smtx" | head -1); echo "layer: $f"; [ -n "$f" ] && cp $f /tmp/sel/
done
ls /tmp/sel
timeout 60 $B/tc_bench --smtx /tmp/sel --n 256 --reps 10 > $O/plain.txt 2>&1
echo "plain rc=$? at $(el)s"; grep -E "^\S+ +0\.95" $O/plain.txt | head
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-none}"
if [ -n "$NSYS" ]; then
  timeout 120 $NSYS profile -o /tmp/p3 --force-overwrite true $B/tc_bench --smtx /tmp/sel --n 256 --reps 10 > $O/nsys_run.txt 2>&1
  echo "nsys rc=$? at $(el)s"
  $NSYS stats --report cuda_gpu_kern_sum --format csv -o $O/kern /tmp/p3.nsys-rep > /dev/null 2>&1
  $NSYS stats --report cuda_gpu_trace --format csv -o $O/trace /tmp/p3.nsys-rep > /dev/null 2>&1
  $NSYS stats --report cuda_api_sum --format csv -o $O/api /tmp/p3.nsys-rep > /dev/null 2>&1
  ls $O; head -c 1500 $O/kern*.csv
else
  NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  timeout 150 $NCU --clock-control none --metrics gpu__time_duration.sum --csv $B/tc_bench --smtx /tmp/sel --n 256 --reps 2 --batches 1 > $O/ncu.csv 2> $O/ncu.err
  echo "ncu rc=$? at $(el)s"
fi
timeout 120 $B/cublas_spread 8 9 10 > $O/cublas_spread.txt 2>&1
echo "cublas_spread rc=$? at $(el)s"; grep "trial medians" $O/cublas_spread.txt
gzip -f $O/*.csv $O/*.txt 2>/dev/null; gunzip $O/device.txt.gz
mkdir -p $OUT && tar czf $OUT/c3.tgz -C /tmp c3
echo "done at $(el)s"
