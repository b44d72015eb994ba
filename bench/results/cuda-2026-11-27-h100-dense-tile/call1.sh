#!/bin/bash
# Session 27, call 1: build 0.1.0 with dense tiles, test_cuda (full), memcheck on
# the quick suite's dense tests, gpu_bench on the DLMC layers (f32, f64) and
# a few meshes/graphs (f32) at N = 16..512.
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi; nvcc --version | tail -2; } > "$OUT/device.txt" 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la tools/loom bench/gpu_bench && make -j16 tests/test_cuda && make cuda-check-spills) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills\|error" "$OUT/build.log" | head -12
timeout 180 ./tests/test_cuda > "$OUT/test_cuda.log" 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked|dense" "$OUT/test_cuda.log" | tail -8
mkdir -p /tmp/dl
for f in "$R"/benchdata/dlmc*.mtx.gz; do ln -sf "$f" /tmp/dl/; done
mkdir -p "$OUT/b"
timeout 150 ./bench/gpu_bench --out "$OUT/b/dlmc" --data /tmp/dl --n 16,32,64,128,256,512 --dtypes f32,f64 --budget-ms 15 > "$OUT/b/dlmc_console.txt" 2>&1
echo "bench dlmc rc=$? at $(el)s"
grep -h "dense-tile" "$OUT/b/dlmc.csv" | head -3
LOOM_CUDA_TEST_QUICK=1 timeout 100 compute-sanitizer --tool memcheck --print-limit 20 ./tests/test_cuda > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$? at $(el)s"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$OUT/memcheck.log" | tail -3
tar czf "$OUT/bench.tgz" -C "$OUT" b && rm -rf "$OUT/b"
