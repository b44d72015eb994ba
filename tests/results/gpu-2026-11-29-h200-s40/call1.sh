#!/bin/bash
# session 40 call 1 (H200): main at 2208d04 (as `make dist` packs it), the
# first sanitizer runs on the N = 1 f32 pair room (e753bef, 0cf69b0):
# the autotools build with the CUDA backend, the spill check, test_cuda,
# memcheck and racecheck on test_cuda's quick subset (its narrow sweep
# runs f32 at N = 1 with rows of 40, which take the room) and on
# test_cuda_api's.  Carry: .devrun/loom-0.1.0.tar.gz, .devrun/cmocka.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c1
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c1/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 && make -j16 tests/test_cuda tests/test_cuda_api && make cuda-check-spills) > $OUT/c1/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills\|spill\|warning:" $OUT/c1/build.log | tail -4
timeout 150 ./tests/test_cuda > $OUT/c1/test_cuda.log 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared" $OUT/c1/test_cuda.log | tail -3
for t in test_cuda test_cuda_api; do
  for tool in memcheck racecheck; do
    extra=""; [ $tool = memcheck ] && extra="--leak-check full"
    LOOM_CUDA_TEST_QUICK=1 timeout 200 ./libtool --mode=execute compute-sanitizer --tool $tool $extra \
      --report-api-errors no --error-exitcode 9 tests/$t > $OUT/c1/${tool}_$t.log 2>&1
    echo "$tool $t (quick) rc=$? at $(el)s"
    grep -hE "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/c1/${tool}_$t.log | tail -3
  done
done
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
