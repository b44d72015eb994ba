#!/bin/bash
# session 30 call 9: the final tree (library as c129f73; test_cuda's
# twice-run plans now run first with 2 alpha) on the H100: build with the
# spill check, test_cuda full, memcheck and racecheck of the quick suite.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la tests/test_cuda && make cuda-check-spills) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" $OUT/build.log
timeout 150 ./tests/test_cuda > $OUT/test_cuda.log 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked|differ" $OUT/test_cuda.log | tail -4
LOOM_CUDA_TEST_QUICK=1 timeout 90 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/memcheck.log 2>&1
echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" $OUT/memcheck.log
LOOM_CUDA_TEST_QUICK=1 timeout 110 ./libtool --mode=execute compute-sanitizer --tool racecheck \
  --error-exitcode 9 tests/test_cuda > $OUT/racecheck.log 2>&1
echo "racecheck rc=$? at $(el)s"; grep -h "RACECHECK SUMMARY\|ERROR SUMMARY" $OUT/racecheck.log
gzip -9 $OUT/build.log
