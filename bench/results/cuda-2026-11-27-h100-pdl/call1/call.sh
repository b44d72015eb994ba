#!/bin/bash
# session 31 call 1: programmatic dependent launch of the EB fix-ups (and
# their loads batched).  Builds main (base) and the change (pdl) side by
# side; test_cuda, memcheck and racecheck on pdl; the f32 bench of both.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
build() { # name targets...
  local n=$1; shift
  mkdir -p /tmp/$n && cd /tmp/$n && tar xzf "$R/$n.tar.gz" && cd loom-0.1.0 &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j8 lib/libloom.la "$@" && make cuda-check-spills
}
(build base bench/gpu_bench > $OUT/build_base.log 2>&1; echo "base build rc=$? at $(el)s") &
(build pdl bench/gpu_bench tests/test_cuda > $OUT/build_pdl.log 2>&1; echo "pdl build rc=$? at $(el)s") &
wait
grep -h "check_spills: backends/cuda/spmm" $OUT/build_pdl.log
cd /tmp/pdl/loom-0.1.0
timeout 100 ./tests/test_cuda > $OUT/test_cuda.log 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked|differ" $OUT/test_cuda.log | tail -4
LOOM_CUDA_TEST_QUICK=1 timeout 60 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/memcheck.log 2>&1
echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" $OUT/memcheck.log
for n in base pdl; do
  cd /tmp/$n/loom-0.1.0; mkdir -p $OUT/bench_$n
  timeout 180 ./bench/run_gpu_bench.sh . $OUT/bench_$n --data $R/benchdata --dtypes f32 --budget-ms 15 > $OUT/bench_$n/console.txt 2>&1
  echo "bench $n rc=$? at $(el)s"
done
cd /tmp/pdl/loom-0.1.0
left=$(( 590 - $(el) ))
LOOM_CUDA_TEST_QUICK=1 timeout $left ./libtool --mode=execute compute-sanitizer --tool racecheck \
  --error-exitcode 9 tests/test_cuda > $OUT/racecheck.log 2>&1
echo "racecheck rc=$? at $(el)s"; grep -h "RACECHECK SUMMARY\|ERROR SUMMARY" $OUT/racecheck.log
gzip -9 $OUT/build_*.log $OUT/bench_*/gpu_bench_stdout.txt $OUT/bench_*/gpu_bench.csv 2>/dev/null
