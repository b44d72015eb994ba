#!/bin/bash
# session 25 call 9: long-row threshold 16 against the default (32 up to N = 64) on all inputs, N = 5..32, one build (env LOOMCU_LONG_THRESHOLD)
export OUT=${OUT:-/tmp/out}
R=$(pwd)/.devrun
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
if [ ! -x /tmp/B/bench/gpu_bench ] || ! cmp -s $R/B.tar.gz /tmp/B.tar.gz; then
  cp $R/B.tar.gz /tmp/B.tar.gz
  rm -rf /tmp/B && mkdir -p /tmp/B && tar xzf $R/B.tar.gz -C /tmp/B --strip-components=1 && cd /tmp/B &&
    ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" > $OUT/build.log 2>&1 &&
    make -j16 lib/libloom.la bench/gpu_bench >> $OUT/build.log 2>&1 || { echo build failed; tail $OUT/build.log; exit 1; }
fi
cd /tmp/B && echo built
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=32,vdl,csc;eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc;rb-rm-sr:vdl,csc;rb-cm-sr:vdl,csc;eb-rm-sr:chunk=128,coarsen=1,csc;rb-rm-sr:coarsen=1,csc;rb-rm-sr:coarsen=2,csc;rb-rm-pr:lanes=32,vdl;rb-rm-pr:lanes=8,vdl;rb-rm-pr:lanes=16,vdl;rb-rm-pr:lanes=4,vdl;rb-cm-pr:lanes=8,vdl;rb-rm-pr:lanes=2,vdl"
args="--data $R/benchdata --rmat 1e6,1e7 --n 5,8,12,16,24,32 --dtypes f32 --budget-ms 6"
for r in 1 2; do
  for t in 0 16; do
    LOOMCU_LONG_THRESHOLD=$t timeout 140 ./bench/gpu_bench $args --out $OUT/t${t}_r$r > $OUT/t${t}_r${r}_stdout.txt 2>&1
    echo "t=$t r=$r rc=$?"
  done
done
cd $OUT && tar czf thr2.tgz --remove-files $(ls | grep -v '^thr2.tgz$')
