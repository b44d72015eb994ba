#!/bin/bash
# session 32 call 2: test_cuda_api (the full-device test, reworked) and a
# record of f32 at N = 1..512 and 3, 5, 6, 7, 12 with the three added
# candidates (EB chunks 64 and 512, RB coarsen 4): the sweep for a retrain.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda_api) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"
mkdir -p $OUT/c2/f32
timeout 120 ./tests/test_cuda_api > $OUT/c2/test_cuda_api.log 2>&1
echo "test_cuda_api rc=$? at $(el)s"; grep -E "PASSED|FAILED|runs|refused|taken|ERROR" $OUT/c2/test_cuda_api.log | tail -6
timeout 400 ./bench/run_gpu_bench.sh . $OUT/c2/f32 --data $R/benchdata --dtypes f32 --budget-ms 15 \
  --n 1,2,3,4,5,6,7,8,12,16,32,64,128,256,512 > $OUT/c2/f32/console.txt 2>&1
echo "bench rc=$? at $(el)s"; grep "^# f32" $OUT/c2/f32/console.txt | tail -4
mv $OUT/build.log $OUT/c2/
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
