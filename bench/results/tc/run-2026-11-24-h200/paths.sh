#!/bin/bash
# Same session as the main run: the fp16 kernels of this tree with the path
# forced (LOOMTC_PATH=gather|resident, a LOOMTC_TUNING build), tc only, all
# DLMC, N = 64..512; each against the baseline.  To $OUT/paths_*.csv.
set -u
B=/tmp/loom-tc-build
NVCC=nvcc; command -v nvcc >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
ARCH="-gencode=arch=compute_90,code=sm_90"
t0=$(date +%s)
$NVCC $ARCH -std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -DLOOMTC_TUNING -DLOOMTC_ONLY_F16 \
    -Iinclude -Ilib -Ireference -Ibackends/cuda -c backends/cuda/tc_spmm.cu -o $B/tune.o && \
$NVCC $ARCH -o $B/tcb_tune $B/tc_bench.o $B/tune.o $B/tc_base.o $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz || { echo "FAIL tuning build"; exit 1; }
echo "tuning build $(( $(date +%s) - t0 )) s"
for path in gather resident; do
  t1=$(date +%s)
  LOOMTC_PATH=$path timeout 80 $B/tcb_tune --dlmc .tc-gpu/dlmc --reps 10 --only-tc --csv $OUT/paths_$path.csv > $B/paths_$path.txt 2>&1
  echo "== forced $path: rc=$? $(( $(date +%s) - t1 )) s"
  grep -E '^baseline|not run' $B/paths_$path.txt
  sed -n '/^against the baseline/,/^summary/p' $B/paths_$path.txt | grep -E '^ +(64|128|256|512) +all'
done
