#!/bin/bash
# device: rows form, gather vs resident kernel forced (LOOMTC_TUNING build, fp16 only) against the automatic
# choice, all DLMC, --only-tc, N = 128/256/512, two alternating rounds; csv files into $OUT
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/p2; mkdir -p $B; T0=$(date +%s)
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( nvcc $ARCH $FLAGS -DLOOMTC_TUNING -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc_spmm ) &
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o || echo FAIL tiles ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/m.o ) &
wait
nvcc $ARCH -o $B/tcb $B/tc_bench.o $B/tc_spmm.o $B/tc_tiles.o $B/m.o -lcusparse -lcublas -lz || echo FAIL link
echo "built at $(( $(date +%s) - T0 ))s"
for r in 1 2; do for path in gather resident auto; do
  if [ $path = auto ]; then env -u LOOMTC_PATH timeout 100 $B/tcb --dlmc .tc-gpu/dlmc --reps 10 --only-tc --n ${NS:-128,256,512} --csv $OUT/p_${path}_$r.csv > /dev/null 2>&1
  else LOOMTC_PATH=$path timeout 100 $B/tcb --dlmc .tc-gpu/dlmc --reps 10 --only-tc --n ${NS:-128,256,512} --csv $OUT/p_${path}_$r.csv > /dev/null 2>&1; fi
  echo "$path round $r rc=$? at $(( $(date +%s) - T0 ))s"
done; done
