#!/bin/bash
# Resident-strip kernel against the gather kernel on every DLMC layer (tc only,
# fp16), LOOMTC_TUNING build; LOOMTC_RX_BLOCKS = resident blocks per SM.
set -u
B=/tmp/loom-tc-build; mkdir -p $B
NVCC=nvcc; command -v nvcc >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
export PATH=$(dirname $NVCC):$PATH
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
( $NVCC $ARCH $FLAGS -Xptxas -v -DLOOMTC_TUNING -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tune.o > $B/tune.log 2>&1 || echo FAIL tune ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o > $B/tiles.log 2>&1 || echo FAIL tiles ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( $NVCC $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
wait
$NVCC $ARCH -o $B/tcb $B/tc_bench.o $B/tune.o $B/tc_tiles.o $B/tc_model.o -lcusparse -lcublas -lz || { echo FAIL link; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"; grep -A1 resident $B/tune.log | grep -E 'spill|Used' | head -4
run() { # name N env...
  local name=$1 n=$2; shift 2
  local t1=$(date +%s)
  env "$@" timeout 100 $B/tcb --dlmc .tc-gpu/dlmc --reps 10 --only-tc --n $n --csv $OUT/$name.csv > $OUT/$name.txt 2>&1
  echo "== $name N=$n rc=$? $(( $(date +%s) - t1 )) s"
}
for rep in 1 2; do
  run g256_$rep 256 LOOMTC_PATH=gather
  run r256_$rep 256 LOOMTC_PATH=resident
  run r2_256_$rep 256 LOOMTC_PATH=resident LOOMTC_RX_BLOCKS=2
done
run r05_256 256 LOOMTC_PATH=resident LOOMTC_RX_BLOCKS=0.5
for n in 128 512; do
  run g${n} $n LOOMTC_PATH=gather
  run r${n} $n LOOMTC_PATH=resident
  run r2_${n} $n LOOMTC_PATH=resident LOOMTC_RX_BLOCKS=2
done
echo "total $(( $(date +%s) - t0 )) s"
