#!/bin/bash
# session 31 call 3: prototype (proto.diff, env-switched, not in main) of
# shapes that share X rows in L1 across the rows of a block, as cuSPARSE
# ALG3 does (16 rows x 64 columns a block):
#   LOOM_PROTO_LONGTHR  all rows/segments "short" (G x V tiles, not V = 1)
#   LOOM_PROTO_GMAX     cap on the SR group: more rows a block, narrower tiles
#   LOOM_PROTO_COLSORT  EB short segments ordered by their first column
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $OUT/device.txt 2>&1
mkdir -p /tmp/p && cd /tmp/p && tar xzf "$R/proto.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"
mkdir -p $OUT/r
LOOM_PROTO_LONGTHR=1000000000 LOOM_PROTO_GMAX=16 LOOM_PROTO_COLSORT=1 LOOM_CUDA_TEST_QUICK=1 timeout 60 ./tests/test_cuda > $OUT/r/test_g16.log 2>&1
echo "test g16 rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked|differ" $OUT/r/test_g16.log | tail -3
LOOM_PROTO_LONGTHR=1000000000 LOOM_PROTO_GMAX=8 LOOM_CUDA_TEST_QUICK=1 timeout 60 ./tests/test_cuda > $OUT/r/test_g8.log 2>&1
echo "test g8 rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked|differ" $OUT/r/test_g8.log | tail -3
C="rb-rm-sr:vdl,csc;rb-rm-sr:vdl,csc,tile-major;eb-rm-sr:chunk=128,vdl,csc,tile-major;eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc,tile-major"
v() { # name env...
  local n=$1; shift
  env "$@" LOOM_BENCH_CONFIGS="$C" timeout 150 ./bench/gpu_bench --out $OUT/r/$n --data $R/benchdata --rmat '' \
    --only final_dense,mp0.5,ffn_conv1,attn_q,mp0.98,soc-Slashdot0902,bcsstk33,email-Enron --n 32,64,128,256,512 \
    --dtypes f32 --budget-ms 15 > $OUT/r/$n.stdout 2>&1
  echo "bench $n rc=$? at $(el)s"
}
v v0 X=0
v v1 LOOM_PROTO_LONGTHR=1000000000
v v2 LOOM_PROTO_LONGTHR=1000000000 LOOM_PROTO_GMAX=16
v v3 LOOM_PROTO_LONGTHR=1000000000 LOOM_PROTO_GMAX=8
v v4 LOOM_PROTO_GMAX=16 LOOM_PROTO_COLSORT=1
v v5 LOOM_PROTO_LONGTHR=1000000000 LOOM_PROTO_GMAX=16 LOOM_PROTO_COLSORT=1
v v0b X=0
cd $OUT && tar czf r.tgz r build.log && rm -rf r build.log
