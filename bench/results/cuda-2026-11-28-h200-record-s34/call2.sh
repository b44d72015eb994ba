#!/bin/bash
# session 34 call 2 (H200): the f64 record with the retrained model, then a
# trial of the EB + SR slab width where X dwarfs the L2 (R-MAT 1e7 at
# N = 64..512, f32: the rule's 64 columns came from an H100).  One build of
# the trial tarball (trial_slab.patch: LOOM_CUDA_TRIAL_SLAB, read on the
# host when the plan is made, replaces the narrow width; unset, the code is
# main's: the kernels are untouched).
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c2
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c2/device.txt 2>&1
mkdir -p /tmp/benchdata && for f in $R/benchdata_xz/*.xz; do
  b=$(basename $f .xz); xz -dc $f | gzip -1 > /tmp/benchdata/$b.mtx.gz & done
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-trial.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda) > $OUT/c2/build.log 2>&1
echo "build rc=$? at $(el)s"
wait; ls /tmp/benchdata | wc -l
timeout 240 ./bench/run_gpu_bench.sh . $OUT/c2/f64 --data /tmp/benchdata --dtypes f64 --budget-ms 15 > $OUT/c2/f64_console.txt 2>&1
echo "record f64 rc=$? at $(el)s"; grep "^# f64" $OUT/c2/f64_console.txt | tail -4
C="eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=512,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
for w in 64 128 32 256 64 128 32 256; do
  [ $(el) -gt 520 ] && break
  i=$((i + 1))
  LOOM_CUDA_TRIAL_SLAB=$w LOOM_BENCH_CONFIGS="$C" timeout $(( 585 - $(el) )) ./bench/gpu_bench --data /tmp/benchdata \
    --only none --rmat 1e7 --n 64,128,256,512 --dtypes f32 --confirm 0 --budget-ms 10 --out $OUT/c2/slab${w}_$i \
    > $OUT/c2/slab${w}_${i}_stdout.txt 2>&1
  echo "slab $w run $i rc=$? at $(el)s"
done
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
