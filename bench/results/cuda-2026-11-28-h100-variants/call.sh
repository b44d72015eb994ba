#!/bin/bash
# session 32 call 1: main + the new API tests (test_cuda_api: TC designs in
# graphs, plans on a full device) under test, memcheck (leak check) and
# racecheck; then EB chunk / coarsen / tile-major variants timed on the
# cases below cuSPARSE (LOOM_BENCH_CONFIGS), real matrices and R-MAT.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda tests/test_cuda_api && make cuda-check-spills) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" $OUT/build.log
mkdir -p $OUT/c1
timeout 120 ./tests/test_cuda_api > $OUT/c1/test_cuda_api.log 2>&1
echo "test_cuda_api rc=$? at $(el)s"; grep -E "PASSED|FAILED|runs|refused|taken|SKIPPED" $OUT/c1/test_cuda_api.log | tail -6
timeout 100 ./tests/test_cuda > $OUT/c1/test_cuda.log 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ" $OUT/c1/test_cuda.log | tail -3
for t in test_cuda test_cuda_api; do
  LOOM_CUDA_TEST_QUICK=1 timeout 90 ./libtool --mode=execute compute-sanitizer --tool memcheck --leak-check full \
    --report-api-errors no --error-exitcode 9 tests/$t > $OUT/c1/memcheck_$t.log 2>&1
  echo "memcheck $t rc=$? at $(el)s"; grep -h "ERROR SUMMARY\|LEAK SUMMARY" $OUT/c1/memcheck_$t.log | tail -2
done
LOOM_CUDA_TEST_QUICK=1 timeout 120 ./libtool --mode=execute compute-sanitizer --tool racecheck \
  --error-exitcode 9 tests/test_cuda_api > $OUT/c1/racecheck_test_cuda_api.log 2>&1
echo "racecheck api rc=$? at $(el)s"; grep -h "RACECHECK SUMMARY" $OUT/c1/racecheck_test_cuda_api.log | tail -1
C="rb-rm-sr:vdl,csc;rb-rm-sr:vdl,csc,tile-major;rb-rm-sr:coarsen=1,csc;rb-rm-sr:coarsen=2,csc;rb-rm-sr:coarsen=4,csc"
for k in 64 96 128 192 256 384 512; do C="$C;eb-rm-sr:chunk=$k,vdl,csc;eb-rm-sr:chunk=$k,vdl,csc,tile-major"; done
C="$C;eb-rm-sr:chunk=128,coarsen=1,csc;eb-rm-sr:chunk=128,coarsen=2,csc;eb-rm-sr:chunk=256,coarsen=2,csc;eb-rm-sr:chunk=64,coarsen=2,csc"
echo "$C" > $OUT/c1/configs.txt
LOOM_BENCH_CONFIGS="$C" timeout 200 ./bench/gpu_bench --out $OUT/c1/real --data $R/benchdata --dtypes f32 --budget-ms 10 \
  --rmat '' --n 32,64,128,256,512 \
  --only final_dense,soc-Slashdot,mp0.5_bottleneck,bcsstk33,sparse-images,bcsstk13,citeseer_allx,email-Enron,mp0.95_enc0,n1024-l1,copter2,MIT8,mbeacxc,fidapex6,bcsstk16,wiki-Vote,facebook \
  > $OUT/c1/real_stdout.txt 2>&1
echo "explore real rc=$? at $(el)s"
LOOM_BENCH_CONFIGS="$C" timeout 150 ./bench/gpu_bench --out $OUT/c1/rmat --data $R/benchdata --dtypes f32 --budget-ms 10 \
  --rmat 1e6,1e7 --n 128,256,512 --only zzzz > $OUT/c1/rmat_stdout.txt 2>&1
echo "explore rmat rc=$? at $(el)s"
mv $OUT/build.log $OUT/c1/
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
