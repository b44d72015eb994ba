#!/bin/bash
# device: compute-sanitizer memcheck of the final TC kernels: test_tc, and tc_bench (only-tc) on two large layers whose
# launch shapes walk several rows a slot over strided rows (N = 256 and a ragged N = 100)
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/tcb; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc_spmm ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
( gcc -O2 -std=c11 -ffp-contract=off -D_POSIX_C_SOURCE=200809L -DLOOM_SRCDIR="\"$PWD\"" $INC -I.tc-gpu/cmocka -I$(dirname $(dirname $(command -v nvcc)))/include -c tests/test_tc.c -o $B/test_tc.o || echo FAIL test_tc ) &
wait
nvcc $ARCH -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/tc_model.o -lcusparse -lcublas -lz || echo FAIL link
nvcc $ARCH -o $B/test_tc $B/test_tc.o $B/tc_spmm.o $B/tc_model.o -L.tc-gpu/cmocka -l:libcmocka.so.0 -lm || echo FAIL link test
export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
LOOM_TC_MODEL=bench/results/tc/model.txt timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test_tc > $OUT/memcheck_test_tc.log 2>&1
echo "test_tc memcheck rc=$?"; grep -h "ERROR SUMMARY\|PASSED\|FAILED" $OUT/memcheck_test_tc.log
for d in one one2; do for n in 256 100; do
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tc_bench --dlmc .tc-gpu/$d --n $n --reps 1 --only-tc > $OUT/memcheck_bench_${d}_$n.log 2>&1
  echo "tc_bench $d N=$n memcheck rc=$?"; grep -h "ERROR SUMMARY" $OUT/memcheck_bench_${d}_$n.log
done; done
cd $OUT && tar czf memcheck.tgz *.log && rm -f *.log
