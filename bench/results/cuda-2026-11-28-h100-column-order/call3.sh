#!/bin/bash
# session 32 call 3: prototype (proto_s32.diff, environment switches):
# LOOM_PROTO_COLSORT orders EB's short segments by their first column
# (the l1-shapes trial's switch never took effect: it read the column
# indices only of a host A); LOOM_PROTO_NOFIX skips the fix-up launch
# (wrong bits: the walk's time alone). EB + SR designs, 9 inputs, N = 32..512.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/proto.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"
mkdir -p $OUT/c3
LOOM_PROTO_COLSORT=1 LOOM_CUDA_TEST_QUICK=1 timeout 60 ./tests/test_cuda > $OUT/c3/test_cuda_colsort_quick.log 2>&1
echo "test_cuda quick colsort rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared" $OUT/c3/test_cuda_colsort_quick.log | tail -2
C="eb-rm-sr:chunk=128,vdl,csc,tile-major;eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc,tile-major;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=512,vdl,csc;eb-rm-sr:chunk=512,vdl,csc,tile-major"
M=final_dense,mp0.5_bottleneck,soc-Slashdot,email-Enron,MIT8,bcsstk33,wiki-Vote,facebook,sparse-images
run() { # tag, env...
  local tag=$1; shift
  env "$@" LOOM_BENCH_CONFIGS="$C" timeout 100 ./bench/gpu_bench --out $OUT/c3/$tag --data $R/benchdata --dtypes f32 \
    --budget-ms 10 --rmat '' --n 32,64,128,256,512 --only $M > $OUT/c3/${tag}_stdout.txt 2>&1
  echo "$tag rc=$? at $(el)s"
}
run v0 X=0
run colsort LOOM_PROTO_COLSORT=1
run nofix LOOM_PROTO_NOFIX=1
run colsort_nofix LOOM_PROTO_COLSORT=1 LOOM_PROTO_NOFIX=1
run v0b X=0
mv $OUT/build.log $OUT/c3/
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
