#!/bin/bash
# racecheck and synccheck of test_tc's rows-form cases (both kernels forced in turn)
set -u
B=/tmp/tcr; mkdir -p $B
NVCC=nvcc; command -v nvcc >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
export PATH=$(dirname $NVCC):$PATH
CUDA_HOME=$(dirname $(dirname $(command -v $NVCC)))
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:$CUDA_HOME/lib64:${LD_LIBRARY_PATH:-}
t0=$(date +%s)
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o || echo FAIL ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL ) &
( gcc -O2 -std=c11 -ffp-contract=off -D_POSIX_C_SOURCE=200809L -DLOOM_SRCDIR="\"$PWD\"" $INC -I.tc-gpu/cmocka -I$CUDA_HOME/include -c tests/test_tc.c -o $B/test_tc.o || echo FAIL ) &
wait
$NVCC $ARCH -o $B/test_tc $B/test_tc.o $B/tc_spmm.o $B/tc_tiles.o $B/tc_model.o -L.tc-gpu/cmocka -l:libcmocka.so.0 -lm || exit 1
echo "built in $(( $(date +%s) - t0 )) s; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
LOOM_TC_MODEL=bench/results/tc/model.txt LOOM_TC_TEST_FORM=rows timeout 60 $B/test_tc > $OUT/test_tc_rows.txt 2>&1; echo "plain rc=$?: $(grep -c 'paths agree' $OUT/test_tc_rows.txt) cases where both kernels agree"
for tool in racecheck synccheck; do
  LOOM_TC_MODEL=bench/results/tc/model.txt LOOM_TC_TEST_FORM=rows timeout $([ $tool = racecheck ] && echo 300 || echo 120) compute-sanitizer --tool $tool --error-exitcode 9 $B/test_tc > $OUT/san_test_tc_rows_$tool.log 2>&1
  echo "$tool rc=$? at $(( $(date +%s) - t0 ))s: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY\|PASSED\|FAILED' $OUT/san_test_tc_rows_$tool.log | tr '\n' ' ')"
done
gzip -f $OUT/*.log
