#!/bin/bash
# session 30 call 7: EB + SR chunk sizes and shapes (tile-major, coarsening,
# without csc) on the record's weakest inputs at N = 32..512, beside
# cuSPARSE, in one gpu_bench run (LOOM_BENCH_CONFIGS: no selectors).
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"
C="eb-rm-sr:chunk=128,vdl,csc,tile-major;eb-rm-sr:chunk=64,vdl,csc,tile-major;eb-rm-sr:chunk=96,vdl,csc,tile-major"
C="$C;eb-rm-sr:chunk=192,vdl,csc,tile-major;eb-rm-sr:chunk=256,vdl,csc,tile-major;eb-rm-sr:chunk=512,vdl,csc,tile-major"
C="$C;eb-rm-sr:chunk=128,vdl,tile-major;eb-rm-sr:chunk=128,coarsen=1,csc,tile-major;eb-rm-sr:chunk=128,coarsen=2,csc,tile-major"
C="$C;rb-rm-sr:vdl,csc;rb-rm-sr:coarsen=2,csc,tile-major;eb-rm-sr:chunk=32,vdl,csc,tile-major;eb-rm-sr:chunk=64,vdl,csc"
mkdir -p $OUT/bench
LOOM_BENCH_CONFIGS="$C" timeout 300 ./bench/gpu_bench --out $OUT/bench/gpu_bench --data $R/benchdata --rmat '' \
  --only final_dense,mp0.5,soc-Slashdot0902,bcsstk33,email-Enron --n 32,64,128,256,512 --dtypes f32 --budget-ms 15 \
  > $OUT/bench/stdout.txt 2>&1
echo "bench rc=$? at $(el)s"
grep -v "^#" $OUT/bench/stdout.txt | tail -30
