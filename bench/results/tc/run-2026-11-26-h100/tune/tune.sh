#!/bin/bash
# device: tc_bench --only-tc under launch-shape knobs (LOOMTC_TUNING build)
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/tcb; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
T0=$(date +%s)
( nvcc $ARCH $FLAGS -DLOOMTC_TUNING $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o > $B/ptxas.log 2>&1 || echo FAIL tc_spmm ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
wait
nvcc $ARCH -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/tc_model.o -lcusparse -lcublas -lz || echo FAIL link
echo "built at $(( $(date +%s) - T0 ))s"
run() { # name, env...
  name=$1; shift
  env "$@" timeout 100 $B/tc_bench --dlmc ${DL:-.tc-gpu/dlmc} --n ${NS:-256} --reps 10 --limit ${LIM:-25} --only-tc --csv $OUT/$name.csv > $OUT/$name.txt 2>&1
  echo "$name rc=$? at $(( $(date +%s) - T0 ))s: $(grep -A2 '^summary' $OUT/$name.txt | tail -1)"
}
run base X=1
run sort LOOMTC_SORT=1
run sort_r1 LOOMTC_SORT=1 LOOMTC_ROWS=1
run sort_r1_s2 LOOMTC_SORT=1 LOOMTC_ROWS=1 LOOMTC_SPLIT=2
run sort_r1_s4 LOOMTC_SORT=1 LOOMTC_ROWS=1 LOOMTC_SPLIT=4
run r1_s4 LOOMTC_ROWS=1 LOOMTC_SPLIT=4
run base2 X=1
tar czf $OUT/tune.tgz -C $OUT $(cd $OUT && ls *.csv *.txt) && rm -f $OUT/*.csv
