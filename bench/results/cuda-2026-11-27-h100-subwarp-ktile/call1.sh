#!/bin/bash
# session 30 call 1: (1) main as committed (c129f73; its last two code
# commits never ran on a GPU): test_cuda full; (2) the sub-warp K-tile
# prototype kt2.cu beside loom's designs and cuSPARSE on DLMC layers.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la tests/test_cuda) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"
nvcc -std=c++17 -arch=sm_90 -O3 --fmad=false -Xptxas -v -I include "$R/kt2/kt2.cu" -o /tmp/kt2 \
  -L lib/.libs -lloom -Xlinker -rpath -Xlinker "$PWD/lib/.libs" -lcusparse > $OUT/kt2_build.log 2>&1 &
BP=$!
timeout 170 ./tests/test_cuda > $OUT/test_cuda.log 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked|ERROR" $OUT/test_cuda.log | tail -4
wait $BP; echo "kt2 build rc=$? at $(el)s"
B=$R/benchdata
timeout 200 /tmp/kt2 $B/dlmc_rn50_mp0.8_final_dense.mtx.gz $B/dlmc_rn50_mp0.5_bottleneck_projection_g3.mtx.gz \
  $B/dlmc_transformer_mp0.9_dec0_ffn_conv1.mtx.gz $B/dlmc_transformer_mp0.95_enc0_attn_q.mtx.gz \
  > $OUT/kt2.txt 2>&1
echo "kt2 rc=$? at $(el)s"; cat $OUT/kt2.txt
gzip -9 $OUT/build.log
