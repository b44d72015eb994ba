#!/bin/bash
# session 27 call 9: the narrow-slab rule as committed (release tarball):
# test_cuda (full, with test_narrow_slabs), memcheck of the quick suite,
# gpu_bench with every candidate on R-MAT 1e6 and 1e7 and four graphs at
# N = 64..512.
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > "$OUT/device.txt" 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench && make -j16 tests/test_cuda && make cuda-check-spills) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" "$OUT/build.log"
timeout 150 ./tests/test_cuda > "$OUT/test_cuda.log" 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked|runs compared|narrow" "$OUT/test_cuda.log" | tail -6
LOOM_CUDA_TEST_QUICK=1 timeout 90 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" "$OUT/memcheck.log"
mkdir -p /tmp/m "$OUT/b"; for m in soc-Slashdot0902 email-Enron pubmed_adj bcsstk33; do ln -sf "$R/benchdata/$m.mtx.gz" /tmp/m/; done
timeout 150 ./bench/gpu_bench --data /tmp/m --rmat 1e6,1e7 --n 64,128,256,512 --dtypes f32 --budget-ms 15 \
  --out "$OUT/b/gpu_bench" > "$OUT/b/console.txt" 2>&1
echo "bench rc=$? at $(el)s"; grep "^# f32\|x0\.\|lowest" "$OUT/b/console.txt" | tail -8
tar czf "$OUT/bench.tgz" -C "$OUT" b && rm -rf "$OUT/b"
