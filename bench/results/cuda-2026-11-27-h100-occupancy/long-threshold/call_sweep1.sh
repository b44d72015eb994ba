#!/bin/bash
# session 25 call 8: long-row threshold sweep for EB+SR segments and RB+SR bins (tuning build: env LOOMCU_LONG_THRESHOLD)
export OUT=${OUT:-/tmp/out}
R=$(pwd)/.devrun
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
rm -rf /tmp/B && mkdir -p /tmp/B && tar xzf $R/B.tar.gz -C /tmp/B --strip-components=1 && cd /tmp/B &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" > $OUT/build.log 2>&1 &&
  make -j16 lib/libloom.la bench/gpu_bench >> $OUT/build.log 2>&1 || { echo build failed; tail $OUT/build.log; exit 1; }
echo built
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=32,vdl,csc;eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc;rb-rm-sr:vdl,csc"
args="--data $R/benchdata --only soc-Slashdot,email-Enron,wiki-Vote,MIT8,astro-ph,facebook,Groebner,memplus,rajat01,mbeacxc --rmat 1e6 --n 8,16,32,64,128 --dtypes f32 --budget-ms 8"
for r in 1 2; do
  for t in 0 16 64 128 100000; do
    LOOMCU_LONG_THRESHOLD=$t timeout 100 ./bench/gpu_bench $args --out $OUT/t${t}_r$r > $OUT/t${t}_r${r}_stdout.txt 2>&1
    echo "t=$t r=$r rc=$?"
  done
done
cd $OUT && tar czf thr.tgz --remove-files $(ls | grep -v '^thr.tgz$')
