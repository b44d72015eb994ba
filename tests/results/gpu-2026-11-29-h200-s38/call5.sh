#!/bin/bash
# session 38 call 5 (H200): main after the resident kernel's changes
# (4ec563b, as `make dist` packs it): the autotools build with the CUDA
# backend, the spill check, the CUDA suites (test_cuda_api, test_cuda,
# test_tc, test_dual_cuda), memcheck on test_cuda's quick subset and on
# test_cuda_api, and test_openmp on this host's CPU.
# Carry: .devrun/loom-0.1.0.tar.gz, .devrun/cmocka.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c5
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; lscpu; } > $OUT/c5/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 && make -j16 tests/test_cuda tests/test_cuda_api tests/test_dual_cuda tests/test_tc tests/test_openmp &&
  make cuda-check-spills) > $OUT/c5/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills\|spill\|warning:" $OUT/c5/build.log | tail -4
for t in test_cuda_api test_cuda test_tc test_dual_cuda; do
  timeout 150 ./tests/$t > $OUT/c5/$t.log 2>&1
  echo "$t rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ" $OUT/c5/$t.log | tail -3
done
LOOM_CUDA_TEST_QUICK=1 timeout 120 ./libtool --mode=execute compute-sanitizer --tool memcheck --leak-check full \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/c5/memcheck_test_cuda.log 2>&1
echo "memcheck test_cuda (quick) rc=$? at $(el)s"; grep -hE "ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED" $OUT/c5/memcheck_test_cuda.log | tail -3
if [ $(el) -lt 420 ]; then
  timeout 100 ./libtool --mode=execute compute-sanitizer --tool memcheck --leak-check full \
    --report-api-errors no --error-exitcode 9 tests/test_cuda_api > $OUT/c5/memcheck_test_cuda_api.log 2>&1
  echo "memcheck test_cuda_api rc=$? at $(el)s"; grep -hE "ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED" $OUT/c5/memcheck_test_cuda_api.log | tail -3
fi
OMP_NUM_THREADS=4 timeout 60 ./tests/test_openmp > $OUT/c5/test_openmp.log 2>&1
echo "test_openmp rc=$? at $(el)s"; grep -E "PASSED|FAILED" $OUT/c5/test_openmp.log | tail -2
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
