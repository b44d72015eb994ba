#!/bin/bash
# session 32 call 6: the EB segments' carries and fix-up 16 bytes at a time
# (vector carry stores in the walk, V columns a fix-up thread): new (the
# working tree) and base (the same tarball with the three files of
# 93d7bab: .devrun/base_files) built side by side; test_cuda and memcheck
# on new; base/new/base/new on EB + SR designs.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"; CL="CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib"
mkdir -p /tmp/b && cd /tmp/b && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 &&
  cp $R/base_files/*.cuh backends/cuda/ &&
  (./configure -q "$CM" "$CL" && make -j8 lib/libloom.la bench/gpu_bench) > $OUT/build_base.log 2>&1 &
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "$CM" "$CL" && make -j8 lib/libloom.la bench/gpu_bench tests/test_cuda && make cuda-check-spills) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"; wait; echo "base build done at $(el)s"; ls /tmp/b/loom-0.1.0/bench/gpu_bench
grep -h "check_spills: backends/cuda/spmm" $OUT/build.log
mkdir -p $OUT/c6
timeout 100 ./tests/test_cuda > $OUT/c6/test_cuda.log 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ" $OUT/c6/test_cuda.log | tail -3
LOOM_CUDA_TEST_QUICK=1 timeout 60 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/c6/memcheck.log 2>&1
echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" $OUT/c6/memcheck.log
C="eb-rm-sr:chunk=64,vdl,csc;eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=128,vdl,csc,tile-major;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=512,vdl,csc"
M=final_dense,mp0.5_bottleneck,sparse-images,MIT8,bcsstk33,email-Enron,soc-Slashdot,wiki-Vote,copter2
for round in 1 2; do
  for v in base new; do
    B=/tmp/loom-0.1.0; [ $v = base ] && B=/tmp/b/loom-0.1.0
    LOOM_BENCH_CONFIGS="$C" timeout 100 $B/bench/gpu_bench --out $OUT/c6/ab_${v}_$round --data $R/benchdata --dtypes f32 \
      --budget-ms 10 --rmat '' --n 8,32,128,256,512 --only $M > $OUT/c6/ab_${v}_${round}_stdout.txt 2>&1
    echo "ab $v $round rc=$? at $(el)s"
  done
done
mv $OUT/build.log $OUT/build_base.log $OUT/c6/
cd $OUT && tar czf c6.tgz c6 && rm -rf c6
