#!/bin/bash
# session 30 call 6: the f32 record of main (c129f73's library; test_cuda of
# the same code passed in call 1) with gpu_bench's confirmation pass
# (--confirm 3, the default), its first run on a GPU.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"
mkdir -p $OUT/bench
timeout 470 ./bench/run_gpu_bench.sh . $OUT/bench --data $R/benchdata --dtypes f32 --budget-ms 15 > $OUT/bench_console.txt 2>&1
echo "bench rc=$? at $(el)s"
tail -25 $OUT/bench/gpu_bench_stdout.txt
gzip -9 $OUT/build.log $OUT/bench/gpu_bench_stdout.txt $OUT/bench/gpu_bench.csv
