#!/bin/bash
# session 25 call 10: test_cuda + memcheck of the threshold change (HEAD tarball); sweep of the long-row threshold at N = 1..4 and 48, 64 (env build B)
export OUT=${OUT:-/tmp/out}
R=$(pwd)/.devrun
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
bld() { # $1 tarball $2 dir
  rm -rf $2 && mkdir -p $2 && tar xzf $1 -C $2 --strip-components=1 && cd $2 &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j8 lib/libloom.la bench/gpu_bench tests/test_cuda && make cuda-check-spills; }
bld $R/loom-0.1.0.tar.gz /tmp/H > $OUT/buildH.log 2>&1 & bld $R/B.tar.gz /tmp/B > $OUT/buildB.log 2>&1 & wait
grep -h "check_spills: backends/cuda/spmm" $OUT/buildH.log
cd /tmp/H && timeout 200 ./tests/test_cuda > $OUT/test_cuda.log 2>&1; echo "test_cuda rc=$?"; tail -2 $OUT/test_cuda.log
LOOM_CUDA_TEST_QUICK=1 timeout 150 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?"; grep -h "ERROR SUMMARY" $OUT/memcheck.log | tail -1
cd /tmp/B
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=32,vdl,csc;eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc;rb-rm-sr:vdl,csc;rb-cm-sr:vdl,csc;rb-rm-pr:lanes=32,vdl;rb-rm-pr:lanes=16,vdl;rb-rm-pr:lanes=8,vdl;rb-rm-pr:lanes=4,vdl;rb-cm-pr:lanes=8,vdl;eb-rm-pr:chunk=128,lanes=32,vdl"
for r in 1 2; do
  for t in 0 16 64; do
    LOOMCU_LONG_THRESHOLD=$t timeout 100 ./bench/gpu_bench --data $R/benchdata --rmat 1e6,1e7 --n 1,2,3,4 --dtypes f32 --budget-ms 6 --out $OUT/n_t${t}_r$r > /dev/null 2>&1
    echo "narrow t=$t r=$r rc=$?"
  done
  for t in 0 16 24; do
    LOOMCU_LONG_THRESHOLD=$t timeout 100 ./bench/gpu_bench --data $R/benchdata --rmat 1e6 --n 48,64 --dtypes f32 --budget-ms 6 --out $OUT/w_t${t}_r$r > /dev/null 2>&1
    echo "wide t=$t r=$r rc=$?"
  done
done
cd $OUT && tar czf thr3.tgz --remove-files $(ls | grep -v '^thr3.tgz$\|^memcheck.log$\|^test_cuda.log$')
