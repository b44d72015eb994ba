#!/bin/bash
# session 35 call 4 (H200): the committed 32-byte walk rule (the tarball
# of the commit, no trial switch): test_cuda, then the f64 record.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c4
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c4/device.txt 2>&1
mkdir -p /tmp/benchdata && for f in $R/benchdata_xz/*.xz; do
  b=$(basename $f .xz); xz -dc $f | gzip -1 > /tmp/benchdata/$b.mtx.gz & done
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda && make cuda-check-spills) > $OUT/c4/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" $OUT/c4/build.log
wait
timeout 100 ./tests/test_cuda > $OUT/c4/test_cuda.log 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|ERROR" $OUT/c4/test_cuda.log | tail -3
timeout $(( 560 - $(el) )) ./bench/run_gpu_bench.sh . $OUT/c4/f64 --data /tmp/benchdata --dtypes f64 --budget-ms 15 > $OUT/c4/f64_console.txt 2>&1
echo "record f64 rc=$? at $(el)s"; grep "^# f64" $OUT/c4/f64_console.txt | tail -4
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
