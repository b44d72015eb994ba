#!/bin/bash
# session 30 call 4 (call 3 the same with the first placement): dense.cu - RB + SR as a dense product (A's block rows
# placed in zeroed shared-memory tiles) beside loom's designs and cuSPARSE
# on the five DLMC layers of the benchmark, N = 16..512.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
cp "$R/dense/spmm_rb_dense.cuh" backends/cuda/
(./configure -q --disable-static "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la) > $OUT/build.log 2>&1 &
nvcc -std=c++17 -arch=sm_90 -O3 --fmad=false -Xptxas -v -I include -I lib -I backends/cuda "$R/dense/dense.cu" -c -o /tmp/dense.o > $OUT/dense_build.log 2>&1
echo "dense compile rc=$? at $(el)s"
wait; echo "lib build at $(el)s"
nvcc -arch=sm_90 /tmp/dense.o -o /tmp/dense -L lib/.libs -lloom -Xlinker -rpath -Xlinker "$PWD/lib/.libs" -lcusparse || exit 1
B=$R/benchdata
timeout 300 /tmp/dense $B/dlmc_rn50_mp0.8_final_dense.mtx.gz $B/dlmc_rn50_mp0.5_bottleneck_projection_g3.mtx.gz \
  $B/dlmc_transformer_mp0.9_dec0_ffn_conv1.mtx.gz $B/dlmc_transformer_mp0.95_enc0_attn_q.mtx.gz \
  $B/dlmc_rn50_mp0.98_bottleneck_projection_g3.mtx.gz > $OUT/dense.txt 2>&1
echo "dense rc=$? at $(el)s"; grep -c "BITS DIFFER" $OUT/dense.txt; cat $OUT/dense.txt
