#!/bin/bash
# One device call: build, spill check, bit-exact tests, compute-sanitizer
# memcheck + racecheck (quick subset), then the benchmark.  Logs to $OUT.
# Usage: .devrun/run.sh [bench args...]   (BENCH=0 skips the benchmark)
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
T0=$(date +%s)
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi; nvcc --version | tail -2; } > $OUT/device.txt 2>&1
mkdir -p build && cd build
(../src/configure -q CMOCKA_CFLAGS="-I$PWD/../cmocka/include" CMOCKA_LIBS="-L$PWD/../cmocka/lib -lcmocka -Wl,-rpath,$PWD/../cmocka/lib" && make -j16 lib/libloom.la tests/test_cuda bench/gpu_bench && make cuda-check-spills) > $OUT/build.log 2>&1
echo "build rc=$? at $(( $(date +%s) - T0 ))s"; grep -h "check_spills" $OUT/build.log
./tests/test_cuda > $OUT/test_cuda.log 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 ))s"
tail -4 $OUT/test_cuda.log; grep -m3 -i "fail\|error" $OUT/test_cuda.log
if [ "${SAN:-1}" = 1 ]; then
LOOM_CUDA_TEST_QUICK=1 timeout 150 ./libtool --mode=execute compute-sanitizer --tool memcheck --leak-check full --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/sanitizer.log 2>&1; echo "memcheck rc=$? at $(( $(date +%s) - T0 ))s"
LOOM_CUDA_TEST_QUICK=1 timeout 120 ./libtool --mode=execute compute-sanitizer --tool racecheck --error-exitcode 9 tests/test_cuda >> $OUT/sanitizer.log 2>&1; echo "racecheck rc=$? at $(( $(date +%s) - T0 ))s"
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|LEAK SUMMARY" $OUT/sanitizer.log
fi
if [ "${BENCH:-1}" = 1 ]; then
  timeout ${BENCH_TIMEOUT:-240} ../src/bench/run_gpu_bench.sh . $OUT/bench --data ../benchdata "$@" > $OUT/bench_console.txt 2>&1
  echo "bench rc=$? at $(( $(date +%s) - T0 ))s"; grep "^#" $OUT/bench_console.txt | tail -12
  tar czf $OUT/bench.tgz -C $OUT bench && rm -rf $OUT/bench
fi
