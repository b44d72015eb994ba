#!/bin/bash
# session 39 call 3 (H200): main after the gather kernel's zero-fill chunks
# (2d1a944, as `make dist` packs it): the autotools build with the CUDA
# backend, the spill check, the CUDA suites (test_cuda_api, test_cuda,
# test_tc, test_dual_cuda), memcheck on test_cuda's quick subset, memcheck
# and racecheck on test_cuda_api's, and test_openmp on this host's CPU.
# Carry: .devrun/loom-0.1.0.tar.gz, .devrun/cmocka.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c3
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; lscpu; } > $OUT/c3/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 && make -j16 tests/test_cuda tests/test_cuda_api tests/test_dual_cuda tests/test_tc tests/test_openmp &&
  make cuda-check-spills) > $OUT/c3/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills\|spill\|warning:" $OUT/c3/build.log | tail -4
for t in test_cuda_api test_cuda test_tc test_dual_cuda; do
  timeout 150 ./tests/$t > $OUT/c3/$t.log 2>&1
  echo "$t rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ" $OUT/c3/$t.log | tail -3
done
LOOM_CUDA_TEST_QUICK=1 timeout 120 ./libtool --mode=execute compute-sanitizer --tool memcheck --leak-check full \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/c3/memcheck_test_cuda.log 2>&1
echo "memcheck test_cuda (quick) rc=$? at $(el)s"; grep -hE "ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED" $OUT/c3/memcheck_test_cuda.log | tail -3
# test_cuda_api's first test fills the device memory (plain runs only):
# the sanitizers run its quick subset (session 34, session 38's call 6)
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--leak-check full"
  LOOM_CUDA_TEST_QUICK=1 timeout 100 ./libtool --mode=execute compute-sanitizer --tool $tool $extra \
    --report-api-errors no --error-exitcode 9 tests/test_cuda_api > $OUT/c3/${tool}_test_cuda_api.log 2>&1
  echo "$tool test_cuda_api (quick) rc=$? at $(el)s"; grep -hE "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/c3/${tool}_test_cuda_api.log | tail -3
done
OMP_NUM_THREADS=4 timeout 60 ./tests/test_openmp > $OUT/c3/test_openmp.log 2>&1
echo "test_openmp rc=$? at $(el)s"; grep -E "PASSED|FAILED" $OUT/c3/test_openmp.log | tail -2
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
