#!/bin/bash
# session 35 call 3 (H200): the 32-byte walk as a plan rule (cuda_plan.c
# segments_vector32, fitted on call 2): test_cuda (its new test_vector32)
# and test_cuda_api, memcheck and racecheck on test_cuda's quick subset;
# an f64 A/B of the rule on the inputs where it holds (f64 was not in
# call 2; LOOM_CUDA_TRIAL_V32_OFF=1 turns it off, a trial switch in this
# tarball only); then the f32 record.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c3
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c3/device.txt 2>&1
mkdir -p /tmp/benchdata && for f in $R/benchdata_xz/*.xz; do
  b=$(basename $f .xz); xz -dc $f | gzip -1 > /tmp/benchdata/$b.mtx.gz & done
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-trial.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda tests/test_cuda_api && make cuda-check-spills) > $OUT/c3/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" $OUT/c3/build.log
wait
for t in test_cuda test_cuda_api; do
  timeout 100 ./tests/$t > $OUT/c3/$t.log 2>&1
  echo "$t rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ|ERROR" $OUT/c3/$t.log | tail -3
done
for tool in memcheck racecheck; do
  x=""; [ $tool = memcheck ] && x="--leak-check full"
  LOOM_CUDA_TEST_QUICK=1 timeout 90 ./libtool --mode=execute compute-sanitizer --tool $tool $x --report-api-errors no \
    --error-exitcode 9 tests/test_cuda > $OUT/c3/${tool}_test_cuda.log 2>&1
  echo "$tool test_cuda (quick) rc=$? at $(el)s"; grep -hE "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/c3/${tool}_test_cuda.log | tail -3
done
C="eb-rm-sr:chunk=512,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
M="luxembourg,wing,mdual,rgg_n,email-Enron,soc-Slashdot"
for r in A1 B1 A2 B2; do
  [ $(el) -gt 300 ] && break
  unset LOOM_CUDA_TRIAL_V32_OFF; case $r in A*) export LOOM_CUDA_TRIAL_V32_OFF=1 ;; esac
  LOOM_BENCH_CONFIGS="$C" timeout 60 ./bench/gpu_bench --data /tmp/benchdata --only "$M" \
    --rmat 1e6,1e7 --n 32,64,128,256,512 --dtypes f64 --confirm 0 --budget-ms 10 --out $OUT/c3/$r \
    > $OUT/c3/${r}_stdout.txt 2>&1
  echo "$r rc=$? at $(el)s"
done
unset LOOM_CUDA_TRIAL_V32_OFF
timeout $(( 585 - $(el) )) ./bench/run_gpu_bench.sh . $OUT/c3/f32 --data /tmp/benchdata --dtypes f32 --budget-ms 15 > $OUT/c3/f32_console.txt 2>&1
echo "record f32 rc=$? at $(el)s"; grep "^# f32" $OUT/c3/f32_console.txt | tail -4
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
