#!/bin/bash
# session 26 call 4: the cases below 0.8 - EB chunk sizes and tile order at
# N = 12..512 on power-law graphs, final_dense and R-MAT (exploration, no
# code change: LOOM_BENCH_CONFIGS times the listed strategies only).
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q && make -j16 lib/libloom.la bench/gpu_bench) > $OUT/build.log 2>&1; echo "build rc=$?"
mkdir -p /tmp/sub && for m in soc-Slashdot0902 email-Enron dlmc_rn50_mp0.8_final_dense MIT8 wiki-Vote facebook_combined; do
  ln -sf $R/benchdata/$m.mtx.gz /tmp/sub/; done
C=""
for c in 128 256 512 1024 2048; do C="$C;eb-rm-sr:chunk=$c,vdl,csc"; done
C="$C;eb-rm-sr:chunk=512,vdl,csc,tile-major;eb-rm-sr:chunk=1024,vdl,csc,tile-major;eb-rm-sr:chunk=256,vdl,csc,tile-major"
C="$C;rb-rm-sr:vdl,csc;rb-rm-sr:vdl,csc,tile-major;rb-rm-sr:coarsen=1,csc;rb-rm-sr:coarsen=2,csc"
C=${C#;}
LOOM_BENCH_CONFIGS="$C" timeout 400 ./bench/gpu_bench --data /tmp/sub --rmat 1e6,1e7 --n 12,16,32,64,128,256,512 \
  --dtypes f32 --budget-ms 20 --out $OUT/explore > $OUT/explore_stdout.txt 2>&1
echo "bench rc=$?"; tail -3 $OUT/explore_stdout.txt
cd $OUT && tar czf explore.tgz explore* build.log && rm -f explore_* explore.csv build.log
