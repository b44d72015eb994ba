#!/bin/bash
# session 32 call 5: the committed column order (same library as call 4's
# new build): test_cuda_api in full, then the f64 record.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda_api) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"
mkdir -p $OUT/c5
timeout 120 ./tests/test_cuda_api > $OUT/c5/test_cuda_api.log 2>&1
echo "test_cuda_api rc=$? at $(el)s"; grep -E "PASSED|FAILED|runs|refused" $OUT/c5/test_cuda_api.log | tail -4
timeout 300 ./bench/run_gpu_bench.sh . $OUT/c5/f64 --data $R/benchdata --dtypes f64 --budget-ms 15 > $OUT/c5/f64_console.txt 2>&1
echo "record f64 rc=$? at $(el)s"; grep "^# f64" $OUT/c5/f64_console.txt | tail -4
mv $OUT/build.log $OUT/c5/
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
