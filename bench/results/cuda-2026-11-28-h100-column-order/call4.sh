#!/bin/bash
# session 32 call 4: the column order of EB's short segments (the plan's
# rule, not the prototype's variable): base (the same tarball with the
# rule's N bound set out of reach) and new built side by side; test_cuda (with test_column_order) and memcheck
# on new; base/new/base/new on the inputs it touches and three it must
# not; then the full f32 record of new.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"; CL="CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib"
mkdir -p /tmp/b && cd /tmp/b && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 &&
  sed -i 's/^#define COLUMN_ORDER_MIN_N 256$/#define COLUMN_ORDER_MIN_N 1000000000 \/\* base: off \*\//' backends/cuda/cuda_plan.c &&
  grep -q "base: off" backends/cuda/cuda_plan.c &&
  (./configure -q "$CM" "$CL" && make -j8 lib/libloom.la bench/gpu_bench) > $OUT/build_base.log 2>&1 &
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "$CM" "$CL" && make -j8 lib/libloom.la bench/gpu_bench tests/test_cuda && make cuda-check-spills) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"; wait; echo "base build done at $(el)s"; ls /tmp/b/loom-0.1.0/bench/gpu_bench
grep -h "check_spills: backends/cuda/spmm" $OUT/build.log
mkdir -p $OUT/c4
timeout 100 ./tests/test_cuda > $OUT/c4/test_cuda.log 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ" $OUT/c4/test_cuda.log | tail -3
LOOM_CUDA_TEST_QUICK=1 timeout 60 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/c4/memcheck.log 2>&1
echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" $OUT/c4/memcheck.log
M=final_dense,mp0.5_bottleneck,sparse-images,MIT8,bcsstk33,email-Enron
for round in 1 2; do
  for v in base new; do
    B=/tmp/loom-0.1.0; [ $v = base ] && B=/tmp/b/loom-0.1.0
    timeout 100 $B/bench/gpu_bench --out $OUT/c4/ab_${v}_$round --data $R/benchdata --dtypes f32 --budget-ms 15 \
      --rmat '' --n 64,128,256,512 --only $M > $OUT/c4/ab_${v}_${round}_stdout.txt 2>&1
    echo "ab $v $round rc=$? at $(el)s"
  done
done
timeout 240 ./bench/run_gpu_bench.sh . $OUT/c4/f32 --data $R/benchdata --dtypes f32 --budget-ms 15 > $OUT/c4/f32_console.txt 2>&1
echo "record rc=$? at $(el)s"; grep "^# f32" $OUT/c4/f32_console.txt | tail -4
mv $OUT/build.log $OUT/build_base.log $OUT/c4/
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
