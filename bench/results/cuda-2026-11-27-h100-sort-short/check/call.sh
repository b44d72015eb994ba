#!/bin/bash
# session 26 call 7: 99cea2d (short items longest first from N = 8):
# test_cuda full, memcheck of the quick suite, and gpu_bench on a few
# inputs with every candidate (the product, against the record's figures).
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun; T0=$(date +%s)
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda && make cuda-check-spills) > $OUT/build.log 2>&1
echo "build rc=$? at $(( $(date +%s) - T0 ))s"; grep -h "check_spills: backends/cuda/spmm" $OUT/build.log
timeout 60 ./tests/test_cuda > $OUT/test_cuda.log 2>&1; echo "test_cuda rc=$?"; tail -n 2 $OUT/test_cuda.log
LOOM_CUDA_TEST_QUICK=1 timeout 40 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?"; grep -h "ERROR SUMMARY" $OUT/memcheck.log
mkdir -p /tmp/sub && for m in soc-Slashdot0902 email-Enron copter2 wiki-Vote; do ln -sf $R/benchdata/$m.mtx.gz /tmp/sub/; done
timeout 40 ./bench/gpu_bench --data /tmp/sub --rmat 1e6 --n 8,12,32,128,512 --dtypes f32 --budget-ms 10 \
  --out $OUT/check > $OUT/check_stdout.txt 2>&1; echo "bench rc=$? at $(( $(date +%s) - T0 ))s"
grep "^# f32" $OUT/check_stdout.txt | head -3
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd $OUT && tar czf call7.tgz check* build.log test_cuda.log memcheck.log device.txt && rm -f check* build.log test_cuda.log memcheck.log device.txt
