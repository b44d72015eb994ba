#!/bin/bash
# session 31 call 4: record-s31 of main (a5431f8; library of 7cd3014, the
# EB fix-ups by programmatic dependent launch): test_cuda and memcheck on
# this H100 (call 1 ran them and racecheck on an H200), then the full
# gpu_bench in f32 and in f64.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda && make cuda-check-spills) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" $OUT/build.log
mkdir -p $OUT/rec
timeout 100 ./tests/test_cuda > $OUT/rec/test_cuda.log 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked|differ" $OUT/rec/test_cuda.log | tail -3
LOOM_CUDA_TEST_QUICK=1 timeout 60 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/rec/memcheck.log 2>&1
echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" $OUT/rec/memcheck.log
for d in f32 f64; do
  mkdir -p $OUT/rec/$d
  timeout 220 ./bench/run_gpu_bench.sh . $OUT/rec/$d --data $R/benchdata --dtypes $d --budget-ms 15 > $OUT/rec/$d/console.txt 2>&1
  echo "bench $d rc=$? at $(el)s"; grep "^# f[36]" $OUT/rec/$d/console.txt | tail -6
done
mv $OUT/build.log $OUT/rec/
cd $OUT && tar czf rec.tgz rec && rm -rf rec
