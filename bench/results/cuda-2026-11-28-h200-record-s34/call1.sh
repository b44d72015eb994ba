#!/bin/bash
# session 34 call 1 (H200): the GPU tests of main at c6b1877, whose test
# mends of session 33 (test_dual_cuda's dense helpers, test_cuda's
# plan_says, the column order's host indices) never ran on a GPU, with
# memcheck; then the f32 record with the CUDA model retrained on H100
# records (d2845f2), its first run on an H200.  The benchmark matrices
# travel xz-compressed (the call's size limit) and are put back as .mtx.gz.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c1
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c1/device.txt 2>&1
mkdir -p /tmp/benchdata && for f in $R/benchdata_xz/*.xz; do
  b=$(basename $f .xz); xz -dc $f | gzip -1 > /tmp/benchdata/$b.mtx.gz & done
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda tests/test_cuda_api tests/test_dual_cuda tests/test_tc &&
  make cuda-check-spills) > $OUT/c1/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills" $OUT/c1/build.log | tail -3
wait; ls /tmp/benchdata | wc -l
for t in test_cuda test_cuda_api test_dual_cuda test_tc; do
  timeout 150 ./tests/$t > $OUT/c1/$t.log 2>&1
  echo "$t rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ" $OUT/c1/$t.log | tail -3
done
for t in test_cuda test_dual_cuda; do
  LOOM_CUDA_TEST_QUICK=1 timeout 80 ./libtool --mode=execute compute-sanitizer --tool memcheck --leak-check full \
    --report-api-errors no --error-exitcode 9 tests/$t > $OUT/c1/memcheck_$t.log 2>&1
  echo "memcheck $t rc=$? at $(el)s"; grep -h "ERROR SUMMARY\|LEAK SUMMARY" $OUT/c1/memcheck_$t.log
done
left=$(( 580 - $(el) ))
timeout $left ./bench/run_gpu_bench.sh . $OUT/c1/f32 --data /tmp/benchdata --dtypes f32 --budget-ms 15 > $OUT/c1/f32_console.txt 2>&1
echo "record f32 rc=$? at $(el)s"; grep "^# f32" $OUT/c1/f32_console.txt | tail -4
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
