#!/bin/bash
# session 31 call 5: test_cuda with the new graph-capture test (the SpMM
# captured in global mode and the graph launched twice), the working tree
# after af7a034.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la tests/test_cuda) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"
timeout 90 ./tests/test_cuda > $OUT/test_cuda.log 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "graph|PASSED|FAILED|checked|differ" $OUT/test_cuda.log | tail -6
gzip -9 $OUT/build.log
