#!/bin/bash
# device: A/B of the tc gather kernel's launch shape: baseline (.tc-gpu/baseline) linked beside the new build
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/tcb; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
BASE=.tc-gpu/baseline
T0=$(date +%s)
( nvcc $ARCH $FLAGS -Dloomtc=loomtc_base -Dloomcu_tc_plan_create=tcbase_plan_create \
      -Dloomcu_tc_plan_destroy=tcbase_plan_destroy -Dloomcu_tc_spmm=tcbase_spmm \
      -Dloomcu_tc_supported=tcbase_supported -Dloomcu_tc_spmm_path=tcbase_spmm_path -I$BASE $INC -c $BASE/tc_spmm.cu -o $B/tc_base.o > $B/base.log 2>&1 || echo FAIL base ) &
( nvcc $ARCH $FLAGS -Xptxas -v $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o > $B/ptxas.log 2>&1 || echo FAIL tc_spmm ) &
( nvcc $ARCH $FLAGS -DLOOMTC_TUNING $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm_t.o > $B/t.log 2>&1 || echo FAIL tc_spmm_t ) &
( nvcc $ARCH $FLAGS $INC -c backends/cuda/spmm_f32.cu -o $B/spmm_f32.o > $B/f32.log 2>&1 || echo FAIL spmm_f32 ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_BASELINE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench_t.o || echo FAIL bench_t ) &
wait
nvcc $ARCH -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/tc_base.o $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz || echo FAIL link
nvcc $ARCH -o $B/tc_bench_t $B/tc_bench_t.o $B/tc_spmm_t.o $B/tc_model.o -lcusparse -lcublas -lz || echo FAIL link_t
echo "built at $(( $(date +%s) - T0 ))s"
awk '/Compiling entry function/ {fn=$0} /spill stores/ && ($1 != 0 || $5 != 0 || $9 != 0) {print "SPILL: " fn}' $B/ptxas.log | head -3
# full sweep, all libraries, baseline beside, bits compared
timeout ${BT:-300} $B/tc_bench --dlmc .tc-gpu/dlmc --n ${NS:-256} --reps 20 --limit ${LIM:-30} --csv $OUT/ab.csv > $OUT/ab.txt 2>&1
echo "ab rc=$? at $(( $(date +%s) - T0 ))s"
[ -n "${NOVAR:-}" ] || for v in "X=1" "LOOMTC_SHAPE=old" "X=2" "LOOMTC_SHAPE=old"; do
  nm=$(echo $v | tr -dc "A-Z0-9_=" | tr "=" "_")$RANDOM
  env $v timeout 90 $B/tc_bench_t --dlmc .tc-gpu/dlmc --n ${NS:-256} --reps 20 --limit ${LIM:-30} --only-tc --csv $OUT/v_$nm.csv > /dev/null 2>&1
  echo "variant $v rc=$? at $(( $(date +%s) - T0 ))s"
done
grep -E "^baseline|differ|not run|WARNING" $OUT/ab.txt | head; sed -n '/^against the baseline/,$p' $OUT/ab.txt
tar czf $OUT/ab.tgz -C $OUT $(cd $OUT && ls *.csv *.txt) && rm -f $OUT/*.csv
