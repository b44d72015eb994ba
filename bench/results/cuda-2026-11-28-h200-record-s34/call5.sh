#!/bin/bash
# session 34 call 5 (H200): the long segments' vector shape as a plan rule
# (cuda_plan.c long_segments_vector, from call 4): test_cuda full (its new
# test_long_vector) and test_cuda_api, then the f32 and f64 records, to set
# beside calls 1 and 2 (main without the rule, same machine kind).
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c5
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c5/device.txt 2>&1
mkdir -p /tmp/benchdata && for f in $R/benchdata_xz/*.xz; do
  b=$(basename $f .xz); xz -dc $f | gzip -1 > /tmp/benchdata/$b.mtx.gz & done
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda tests/test_cuda_api && make cuda-check-spills) > $OUT/c5/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" $OUT/c5/build.log
wait
for t in test_cuda test_cuda_api; do
  timeout 100 ./tests/$t > $OUT/c5/$t.log 2>&1
  echo "$t rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ|long segments" $OUT/c5/$t.log | tail -3
done
timeout 170 ./bench/run_gpu_bench.sh . $OUT/c5/f32 --data /tmp/benchdata --dtypes f32 --budget-ms 15 > $OUT/c5/f32_console.txt 2>&1
echo "record f32 rc=$? at $(el)s"; grep "^# f32" $OUT/c5/f32_console.txt | tail -4
timeout $(( 570 - $(el) )) ./bench/run_gpu_bench.sh . $OUT/c5/f64 --data /tmp/benchdata --dtypes f64 --budget-ms 15 > $OUT/c5/f64_console.txt 2>&1
echo "record f64 rc=$? at $(el)s"; grep "^# f64" $OUT/c5/f64_console.txt | tail -4
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
