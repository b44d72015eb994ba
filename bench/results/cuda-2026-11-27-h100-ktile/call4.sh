#!/bin/bash
# session 28 call 4: (1) main as committed (a42d3f0, never run on a GPU
# before): test_cuda (full), memcheck and racecheck of the quick suite;
# (2) the K-tile prototype (proto/ktile.cu) against loom's RB/EB + SR
# designs and cuSPARSE ALG2/ALG3 on DLMC layers, meshes and a graph.
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > "$OUT/device.txt" 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la && make -j16 tests/test_cuda && make cuda-check-spills) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" "$OUT/build.log"
nvcc -std=c++17 -arch=sm_90 -O3 --fmad=false -Xptxas -v -I include "$R/ktile.cu" -o /tmp/ktile \
  -L lib/.libs -lloom -Xlinker -rpath -Xlinker "$PWD/lib/.libs" -lcusparse > "$OUT/ktile_build.log" 2>&1
echo "ktile build rc=$? at $(el)s"
timeout 150 ./tests/test_cuda > "$OUT/test_cuda.log" 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|runs compared|ERROR" "$OUT/test_cuda.log" | tail -4
LOOM_CUDA_TEST_QUICK=1 timeout 80 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" "$OUT/memcheck.log"
LOOM_CUDA_TEST_QUICK=1 timeout 150 ./libtool --mode=execute compute-sanitizer --tool racecheck \
  --error-exitcode 9 tests/test_cuda > "$OUT/racecheck.log" 2>&1
echo "racecheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$OUT/racecheck.log"
B=$R/benchdata
timeout 150 /tmp/ktile $B/dlmc_rn50_mp0.8_final_dense.mtx.gz $B/dlmc_rn50_mp0.5_bottleneck_projection_g3.mtx.gz \
  $B/dlmc_transformer_mp0.9_dec0_ffn_conv1.mtx.gz $B/dlmc_transformer_mp0.95_enc0_attn_q.mtx.gz \
  $B/dlmc_rn50_mp0.98_bottleneck_projection_g3.mtx.gz $B/bcsstk16.mtx.gz $B/bcsstk33.mtx.gz \
  $B/email-Enron.mtx.gz > "$OUT/ktile.txt" 2>&1
echo "ktile rc=$? at $(el)s"; cat "$OUT/ktile.txt"
