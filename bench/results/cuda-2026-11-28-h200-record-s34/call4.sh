#!/bin/bash
# session 34 call 4 (H200): call 3's ncu showed the EB + SR segments walk
# issue-bound at R-MAT 1e7, N = 512 (0.56 instructions a cycle per
# scheduler against ALG2's 0.41, the same L2 sectors, fewer DRAM bytes,
# 1.33x ALG2's time), and the long segments (over 16 non-zeros at N <= 64,
# 128 above: 53-83% of R-MAT's non-zeros) walk one column a lane with
# scalar loads.  Trial (trial_long_as_short.patch, a host switch read at
# launch, kernels untouched): LOOM_CUDA_TRIAL_LONG_AS_SHORT=1 lists them
# with the short ones, so they walk with the group's G x V vector shape.
# A = unset (main), B = set; rounds A B A B; same sums either way.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c4
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c4/device.txt 2>&1
mkdir -p /tmp/benchdata && for f in $R/benchdata_xz/*.xz; do
  b=$(basename $f .xz); xz -dc $f | gzip -1 > /tmp/benchdata/$b.mtx.gz & done
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-trial.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda) > $OUT/c4/build.log 2>&1
echo "build rc=$? at $(el)s"
wait; ls /tmp/benchdata | wc -l
LOOM_CUDA_TRIAL_LONG_AS_SHORT=1 timeout 120 ./tests/test_cuda > $OUT/c4/test_cuda_B.log 2>&1
echo "test_cuda (B) rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared" $OUT/c4/test_cuda_B.log | tail -2
C="eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=512,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
for r in A1 B1 A2 B2; do
  [ $(el) -gt 470 ] && break
  case $r in B*) export LOOM_CUDA_TRIAL_LONG_AS_SHORT=1 ;; *) unset LOOM_CUDA_TRIAL_LONG_AS_SHORT ;; esac
  LOOM_BENCH_CONFIGS="$C" timeout $(( 585 - $(el) )) ./bench/gpu_bench --data /tmp/benchdata \
    --rmat 1e6,1e7,1e8 --n 8,16,32,64,128,256,512 --dtypes f32 --confirm 0 --budget-ms 10 --out $OUT/c4/$r \
    > $OUT/c4/${r}_stdout.txt 2>&1
  echo "$r rc=$? at $(el)s"
done
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
