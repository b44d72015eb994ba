#!/bin/bash
# compute-sanitizer initcheck over the CUDA test suites (quick subsets).
R=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
cd /tmp && rm -rf loom-0.1.0 && tar xzf $R/loom-0.1.0.tar.gz && cd loom-0.1.0
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" && \
  make -j16 lib/libloom.la && make -j16 tests/test_cuda tests/test_dual_cuda tests/test_tc) > $OUT/build.log 2>&1
echo "build rc=$?"
export LOOM_CUDA_TEST_QUICK=1
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $OUT/initcheck.log
for t in test_cuda test_dual_cuda test_tc; do
  timeout 150 ./libtool --mode=execute compute-sanitizer --tool initcheck --error-exitcode 9 tests/$t >> $OUT/initcheck.log 2>&1
  echo "initcheck $t rc=$?" | tee -a $OUT/initcheck.log
done
grep -h "ERROR SUMMARY" $OUT/initcheck.log
