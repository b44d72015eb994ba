#!/bin/bash
# session 40 call 5 (H200): main at 2837950 (as `make dist` packs it), f64
# at N = 1 on the 16-lane walk at every size: the build, the spill check,
# test_cuda, test_cuda_api, memcheck and racecheck on test_cuda's quick
# subset, and both sanitizers on gpu_bench's f64 N = 1 EB + SR walk on
# R-MAT 1e6 (a size that took the 8-lane walk before; the quick subset
# runs the one-matrix tests in f32 only).  Carry .devrun/loom-0.1.0.tar.gz,
# .devrun/cmocka.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c5
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c5/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 && make -j16 tests/test_cuda tests/test_cuda_api bench/gpu_bench && make cuda-check-spills) > $OUT/c5/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" $OUT/c5/build.log
for t in test_cuda test_cuda_api; do
  timeout 150 ./tests/$t > $OUT/c5/$t.log 2>&1
  echo "$t rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared" $OUT/c5/$t.log | tail -3
done
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--leak-check full"
  LOOM_CUDA_TEST_QUICK=1 timeout 150 ./libtool --mode=execute compute-sanitizer --tool $tool $extra \
    --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/c5/${tool}_test_cuda.log 2>&1
  echo "$tool test_cuda (quick) rc=$? at $(el)s"
  grep -hE "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/c5/${tool}_test_cuda.log | tail -3
  for c in 128 1024; do
    LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=$c,vdl,csc" timeout 150 ./libtool --mode=execute compute-sanitizer --tool $tool \
      --kernel-name regex:eb_sr_narrow_segments_kernel --report-api-errors no --error-exitcode 9 \
      ./bench/gpu_bench --only NONE --rmat 1e6 --n 1 --dtypes f64 --confirm 0 --budget-ms 1 --out /tmp/g \
      > $OUT/c5/${tool}_gpu_bench_f64_n1_chunk$c.log 2>&1
    echo "$tool gpu_bench f64 N=1 chunk $c rc=$? at $(el)s"
    grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|rmat-1e\+06 .*N=1" $OUT/c5/${tool}_gpu_bench_f64_n1_chunk$c.log | cut -c1-120 | tail -2
  done
done
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
