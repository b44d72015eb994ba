#!/bin/bash
# session 33 call 5: the record of main with the CUDA model retrained on records s33, s32b and s32 (R-MAT included), f32 only; before it
# test_cuda quick.
# The benchmark matrices travel xz-compressed (the device
# call's size limit) and are put back as .mtx.gz before the runs.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c5
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c5/device.txt 2>&1
mkdir -p /tmp/benchdata && for f in $R/benchdata_xz/*.xz; do
  b=$(basename $f .xz); xz -dc $f | gzip -1 > /tmp/benchdata/$b.gz & done; wait
ls /tmp/benchdata | wc -l
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda && make cuda-check-spills) > $OUT/c5/build.log 2>&1
echo "build rc=$? at $(el)s"
LOOM_CUDA_TEST_QUICK=1 timeout 60 ./tests/test_cuda > $OUT/c5/test_cuda_quick.log 2>&1
echo "test_cuda (quick) rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared" $OUT/c5/test_cuda_quick.log | tail -2
timeout 200 ./bench/run_gpu_bench.sh . $OUT/c5/f32 --data /tmp/benchdata --dtypes f32 --budget-ms 15 > $OUT/c5/f32_console.txt 2>&1
echo "record f32 rc=$? at $(el)s"; grep "^# f32" $OUT/c5/f32_console.txt | tail -4
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
