#!/bin/bash
# session 28 call 9: where the K-tile prototype's time goes: copies and
# barriers alone, pairs alone (timing only), and the next window of pairs
# loaded a window ahead; final_dense and mp0.5, N = 64..512.
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > "$OUT/device.txt" 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" && make -j16 lib/libloom.la) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"
nvcc -std=c++17 -arch=sm_90 -O3 --fmad=false -Xptxas -v -I include "$R/ktile.cu" -o /tmp/ktile \
  -L lib/.libs -lloom -Xlinker -rpath -Xlinker "$PWD/lib/.libs" -lcusparse > "$OUT/ktile_build.log" 2>&1
echo "ktile build rc=$? at $(el)s"
B=$R/benchdata
timeout 150 /tmp/ktile $B/dlmc_rn50_mp0.8_final_dense.mtx.gz $B/dlmc_rn50_mp0.5_bottleneck_projection_g3.mtx.gz \
  > "$OUT/ktile.txt" 2>&1
echo "ktile rc=$? at $(el)s"; grep -E "mtx|N =|ALG3|loom rb-rm-sr:vdl,csc |eb-rm|ktile|copies|pairs" "$OUT/ktile.txt"
