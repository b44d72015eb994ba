#!/bin/bash
# session 35 call 2 (H200): (1) test_cuda_api's quick subset under memcheck
# and racecheck (call 1 ran the whole suite under them, whose first test
# fills the device and so cannot run beside a sanitizer), with the test's
# new teardown; (2) trial_v32_slab.patch, two host switches read at launch:
# LOOM_CUDA_TRIAL_V32=1 walks EB + SR segments at wide N with 32 bytes of
# columns a lane (two 16-byte loads a pair: V = 8 in f32) and half the
# lanes a group, to cut the instructions per fma of the issue-bound walk
# (session 34 call 3); LOOM_CUDA_TRIAL_SLAB=128 sets the slab where X
# dwarfs the L2 (the rule's 64).  Bits first (test_cuda with the switches),
# then the A/B: A main, B V32, C V32 + slab 128; rounds A B C A B C.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c2
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c2/device.txt 2>&1
mkdir -p /tmp/benchdata && for f in $R/benchdata_xz/*.xz; do
  b=$(basename $f .xz); xz -dc $f | gzip -1 > /tmp/benchdata/$b.mtx.gz & done
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-trial.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda tests/test_cuda_api && make cuda-check-spills) > $OUT/c2/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills.*spmm" $OUT/c2/build.log | tail -2
wait; ls /tmp/benchdata | wc -l
LOOM_CUDA_TRIAL_V32=1 timeout 100 ./tests/test_cuda > $OUT/c2/test_cuda_v32.log 2>&1
echo "test_cuda (V32) rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared" $OUT/c2/test_cuda_v32.log | tail -2
LOOM_CUDA_TRIAL_V32=1 LOOM_CUDA_TRIAL_SLAB=128 timeout 100 ./tests/test_cuda > $OUT/c2/test_cuda_v32_slab.log 2>&1
echo "test_cuda (V32, slab 128) rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared" $OUT/c2/test_cuda_v32_slab.log | tail -2
for tool in memcheck racecheck; do
  x=""; [ $tool = memcheck ] && x="--leak-check full"
  LOOM_CUDA_TEST_QUICK=1 timeout 100 ./libtool --mode=execute compute-sanitizer --tool $tool $x --report-api-errors no \
    --error-exitcode 9 tests/test_cuda_api > $OUT/c2/${tool}_test_cuda_api.log 2>&1
  echo "$tool test_cuda_api (quick) rc=$? at $(el)s"; grep -hE "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/c2/${tool}_test_cuda_api.log | tail -4
done
C="eb-rm-sr:chunk=512,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
for r in A1 B1 C1 A2 B2 C2; do
  [ $(el) -gt 500 ] && break
  unset LOOM_CUDA_TRIAL_V32 LOOM_CUDA_TRIAL_SLAB
  case $r in B*) export LOOM_CUDA_TRIAL_V32=1 ;; C*) export LOOM_CUDA_TRIAL_V32=1 LOOM_CUDA_TRIAL_SLAB=128 ;; esac
  LOOM_BENCH_CONFIGS="$C" timeout $(( 590 - $(el) )) ./bench/gpu_bench --data /tmp/benchdata \
    --rmat 1e6,1e7,1e8 --n 32,64,128,256,512 --dtypes f32 --confirm 0 --budget-ms 10 --out $OUT/c2/$r \
    > $OUT/c2/${r}_stdout.txt 2>&1
  echo "$r rc=$? at $(el)s"
done
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
