#!/bin/bash
# session 25 call 11: final tests of the long-row threshold 16 (HEAD + threshold): test_cuda, memcheck, racecheck; gpu_bench at N = 1..64 against the record's tarball (A = 3de0922 kernels)
export OUT=${OUT:-/tmp/out}
R=$(pwd)/.devrun
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
bld() { rm -rf $2 && mkdir -p $2 && tar xzf $1 -C $2 --strip-components=1 && cd $2 &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j8 lib/libloom.la bench/gpu_bench tests/test_cuda && make cuda-check-spills; }
bld $R/loom-0.1.0.tar.gz /tmp/H > $OUT/buildH.log 2>&1 & bld $R/A.tar.gz /tmp/A > $OUT/buildA.log 2>&1 & wait
grep -h "check_spills: backends/cuda/spmm" $OUT/buildH.log
cd /tmp/H && timeout 200 ./tests/test_cuda > $OUT/test_cuda.log 2>&1; echo "test_cuda rc=$?"; tail -2 $OUT/test_cuda.log
LOOM_CUDA_TEST_QUICK=1 timeout 150 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?"; grep -h "ERROR SUMMARY" $OUT/memcheck.log | tail -1
LOOM_CUDA_TEST_QUICK=1 timeout 150 ./libtool --mode=execute compute-sanitizer --tool racecheck \
  --error-exitcode 9 tests/test_cuda > $OUT/racecheck.log 2>&1
echo "racecheck rc=$?"; grep -h "RACECHECK SUMMARY" $OUT/racecheck.log | tail -1
args="--data $R/benchdata --rmat 1e6,1e7 --n 1,2,4,8,16,32,64 --dtypes f32 --budget-ms 6"
for r in 1 2; do for v in A H; do
  (cd /tmp/$v && timeout 120 ./bench/gpu_bench $args --out $OUT/$v$r > $OUT/$v${r}_stdout.txt 2>&1); echo "$v$r rc=$?"
done; done
cd $OUT && tar czf final.tgz --remove-files $(ls | grep -v '^final.tgz$\|\.log$')
