#!/bin/bash
# session 27 call 10: after the segments kernel counts a partial last
# slab's tiles as the launch does (the bug test_narrow_slabs found in call
# 9): test_cuda (full) and memcheck of the quick suite.
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > "$OUT/device.txt" 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la && make -j16 tests/test_cuda && make cuda-check-spills) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" "$OUT/build.log"
timeout 120 ./tests/test_cuda > "$OUT/test_cuda.log" 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|runs compared|ERROR" "$OUT/test_cuda.log" | tail -6
LOOM_CUDA_TEST_QUICK=1 timeout 60 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" "$OUT/memcheck.log"
