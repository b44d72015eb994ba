#!/bin/bash
# session 40 call 8 (H200): main at 1718a87 (as `make dist` packs it): the
# suites calls 5 and 6 did not run, test_tc (the gather kernel's 16-bit
# element path now calls load_chunk16_sync, PTX identical) and
# test_dual_cuda, with test_openmp on this host's CPU and the spill check.
# Carry .devrun/loom-0.1.0.tar.gz, .devrun/cmocka.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c8
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c8/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 && make -j16 tests/test_tc tests/test_dual_cuda tests/test_openmp && make cuda-check-spills) > $OUT/c8/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/tc" $OUT/c8/build.log
for t in test_tc test_dual_cuda; do
  timeout 150 ./tests/$t > $OUT/c8/$t.log 2>&1
  echo "$t rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ" $OUT/c8/$t.log | tail -3
done
OMP_NUM_THREADS=4 timeout 60 ./tests/test_openmp > $OUT/c8/test_openmp.log 2>&1
echo "test_openmp rc=$? at $(el)s"; grep -E "PASSED|FAILED" $OUT/c8/test_openmp.log | tail -2
cd $OUT && tar czf c8.tgz c8 && rm -rf c8
