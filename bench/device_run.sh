#!/bin/bash
# device_run.sh - one call on a lent GPU machine: build the release tarball
# with CUDA, run the bit-exact CUDA test, the GPU benchmark (every loom
# candidate, the rules / auto / tune selectors and cuSPARSE), then
# compute-sanitizer memcheck on the quick test while time is left.
#
#   .devrun/ (ignored; carried with the call) holds loom-0.1.0.tar.gz (make
#   dist of the commit to test), cmocka/{include,lib} and benchdata/ (the
#   .mtx.gz files of ../shared/data/bench).
#   Run as: LIMIT=570 bash bench/device_run.sh [gpu_bench options]
# Writes to $OUT: device.txt, build.log, test_cuda.log, bench.tgz,
# memcheck.log; prints a short summary last.
R=$(cd "$(dirname "$0")/.." && pwd)/.devrun
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi; nvcc --version | tail -2; } > "$OUT/device.txt" 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
    make -j16 lib/libloom.la tools/loom tests/test_cuda bench/gpu_bench &&
    make cuda-check-spills) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills\|error" "$OUT/build.log" | head -10
./tools/loom info --hardware 2>&1 | grep -i cuda | head -3
timeout "${TEST_TIMEOUT:-150}" ./tests/test_cuda > "$OUT/test_cuda.log" 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked" "$OUT/test_cuda.log" | tail -3
grep -m5 -i "fail\|differ" "$OUT/test_cuda.log"
mkdir -p "$OUT/bench"
timeout "${BENCH_TIMEOUT:-300}" ./bench/run_gpu_bench.sh . "$OUT/bench" --data "$R/benchdata" "$@" \
    > "$OUT/bench_console.txt" 2>&1
echo "bench rc=$? at $(el)s"
tar czf "$OUT/bench.tgz" -C "$OUT" bench bench_console.txt && rm -rf "$OUT/bench"
left=$(( ${LIMIT:-570} - $(el) ))
if [ "$left" -gt 40 ]; then
    LOOM_CUDA_TEST_QUICK=1 timeout $(( left - 15 )) ./libtool --mode=execute compute-sanitizer \
        --tool memcheck --report-api-errors no --error-exitcode 9 tests/test_cuda \
        > "$OUT/memcheck.log" 2>&1
    echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" "$OUT/memcheck.log"
fi
grep "^#" "$OUT/bench_console.txt" | tail -12
