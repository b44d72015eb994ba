#!/bin/bash
# session 35 call 1 (H200): the first GPU run of the stream-ordering fix
# (ded51a2, b30ec3f): test_cuda_api three times (its graph test failed once
# in session 34 call 5), memcheck and racecheck on it, then test_cuda (full),
# test_tc and test_dual_cuda, racecheck on test_cuda (quick).
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c1
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c1/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la tests/test_cuda tests/test_cuda_api tests/test_dual_cuda tests/test_tc &&
  make cuda-check-spills) > $OUT/c1/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills" $OUT/c1/build.log | tail -3
for i in 1 2 3; do
  timeout 100 ./tests/test_cuda_api > $OUT/c1/test_cuda_api_$i.log 2>&1
  echo "test_cuda_api run $i rc=$? at $(el)s"; grep -E "PASSED|FAILED|ERROR|checked" $OUT/c1/test_cuda_api_$i.log | tail -4
done
for tool in memcheck racecheck; do
  x=""; [ $tool = memcheck ] && x="--leak-check full"
  timeout 150 ./libtool --mode=execute compute-sanitizer --tool $tool $x --report-api-errors no --error-exitcode 9 \
    tests/test_cuda_api > $OUT/c1/${tool}_test_cuda_api.log 2>&1
  echo "$tool test_cuda_api rc=$? at $(el)s"; grep -hE "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/c1/${tool}_test_cuda_api.log | tail -4
done
for t in test_cuda test_tc test_dual_cuda; do
  timeout 150 ./tests/$t > $OUT/c1/$t.log 2>&1
  echo "$t rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ" $OUT/c1/$t.log | tail -3
done
LOOM_CUDA_TEST_QUICK=1 timeout 100 ./libtool --mode=execute compute-sanitizer --tool racecheck --report-api-errors no \
  --error-exitcode 9 tests/test_cuda > $OUT/c1/racecheck_test_cuda.log 2>&1
echo "racecheck test_cuda rc=$? at $(el)s"; grep -hE "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" $OUT/c1/racecheck_test_cuda.log | tail -3
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
