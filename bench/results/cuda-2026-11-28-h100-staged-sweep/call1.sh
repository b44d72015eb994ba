#!/bin/bash
# session 33 call 1: the staged sweep at N = 1 (eb_sr_staged_sweep_kernel:
# a warp copies its 32 swept rows' pairs as one run, gathers x, keeps
# (a, x) in shared memory; each thread then sums its row).  One build of the
# working tree; LOOM_CUDA_STAGED_SWEEP (a trial switch read at launch):
# 0 = off, 1 = the rule (A's pairs streamed), 2 = forced everywhere.
# Tests first (test_cuda, test_cuda_api, test_dual_cuda: the library after
# the test refactors 888fd24 and 9ac9456 too), then off/rule/forced twice,
# memcheck and racecheck on the quick suite.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c1
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda tests/test_cuda_api tests/test_dual_cuda &&
  make cuda-check-spills) > $OUT/c1/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" $OUT/c1/build.log
for t in test_cuda test_cuda_api test_dual_cuda; do
  timeout 120 ./tests/$t > $OUT/c1/$t.log 2>&1
  echo "$t rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ" $OUT/c1/$t.log | tail -3
done
mkdir -p /tmp/sub && for m in soc-Slashdot0902 email-Enron wiki-Vote pubmed_adj mdual luxembourg_osm rajat01 bcsstk33 PGPgiantcompo citeseer_adj graphchallenge_n1024-l1; do
  ln -sf $R/benchdata/$m.mtx.gz /tmp/sub/; done
C="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc;eb-rm-sr:chunk=4096,vdl,csc"
for round in 1 2; do
  for v in 0 1 2; do
    LOOM_CUDA_STAGED_SWEEP=$v LOOM_BENCH_CONFIGS="$C" timeout 80 ./bench/gpu_bench --data /tmp/sub \
      --rmat 1e6,1e7,1e8 --n 1 --dtypes f32,f64 --budget-ms 10 --out $OUT/c1/s${v}_$round \
      > $OUT/c1/s${v}_${round}_stdout.txt 2>&1
    echo "s$v round $round rc=$? at $(el)s"
  done
done
LOOM_CUDA_TEST_QUICK=1 timeout 60 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/c1/memcheck.log 2>&1
echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" $OUT/c1/memcheck.log
left=$(( 575 - $(el) ))
if [ "$left" -gt 30 ]; then
  LOOM_CUDA_TEST_QUICK=1 timeout $left ./libtool --mode=execute compute-sanitizer --tool racecheck \
    --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/c1/racecheck.log 2>&1
  echo "racecheck rc=$? at $(el)s"; grep -h "RACECHECK SUMMARY" $OUT/c1/racecheck.log
fi
mv $OUT/device.txt $OUT/c1/; cd $OUT && tar czf c1.tgz c1 && rm -rf c1
