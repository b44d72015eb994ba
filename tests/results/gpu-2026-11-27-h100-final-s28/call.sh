#!/bin/bash
# session 28 call 11: the session's last library commit (release tarball):
# test_cuda (full), memcheck of the quick suite, and gpu_bench on the two
# layers the K-tiles take at N = 512 (final_dense, mp0.5), N = 256 and 512.
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > "$OUT/device.txt" 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench && make -j16 tests/test_cuda && make cuda-check-spills) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" "$OUT/build.log"
timeout 150 ./tests/test_cuda > "$OUT/test_cuda.log" 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|runs compared" "$OUT/test_cuda.log" | tail -3
LOOM_CUDA_TEST_QUICK=1 timeout 80 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" "$OUT/memcheck.log"
timeout 60 ./bench/gpu_bench --data "$R/benchdata" --only final_dense,mp0.5_bottleneck --rmat '' --n 256,512 \
  --dtypes f32 --budget-ms 10 --out "$OUT/gpu_bench" > "$OUT/gpu_bench.txt" 2>&1
echo "bench rc=$? at $(el)s"; grep -E " N=(256|512) " "$OUT/gpu_bench.txt" | grep -v "^#"
