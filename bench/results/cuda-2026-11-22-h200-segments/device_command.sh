#!/bin/bash
# Device call (2026-11-22, session 2): build, spill check, the full bit-exact
# CUDA test, the f32 benchmark, then compute-sanitizer memcheck on the quick
# test if time is left.  Logs to $OUT.
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi; nvcc --version | tail -2; } > $OUT/device.txt 2>&1
mkdir -p build && cd build
(../src/configure -q CMOCKA_CFLAGS="-I$PWD/../cmocka/include" CMOCKA_LIBS="-L$PWD/../cmocka/lib -lcmocka -Wl,-rpath,$PWD/../cmocka/lib" && make -j16 lib/libloom.la tests/test_cuda bench/gpu_bench && make cuda-check-spills) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills\|error" $OUT/build.log | head -20
timeout ${TEST_TIMEOUT:-150} ./tests/test_cuda > $OUT/test_cuda.log 2>&1; echo "test_cuda rc=$? at $(el)s"
tail -4 $OUT/test_cuda.log; grep -m5 -i "fail\|differ" $OUT/test_cuda.log
timeout ${BENCH_TIMEOUT:-240} ../src/bench/run_gpu_bench.sh . $OUT/bench --data ../benchdata "$@" > $OUT/bench_console.txt 2>&1
echo "bench rc=$? at $(el)s"; grep "^#" $OUT/bench_console.txt | tail -14
tar czf $OUT/bench.tgz -C $OUT bench && rm -rf $OUT/bench
left=$(( ${LIMIT:-580} - $(el) ))
if [ $left -gt 40 ]; then
  LOOM_CUDA_TEST_QUICK=1 timeout $(( left - 10 )) ./libtool --mode=execute compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/memcheck.log 2>&1; echo "memcheck rc=$? at $(el)s"
  grep -h "ERROR SUMMARY" $OUT/memcheck.log
fi
