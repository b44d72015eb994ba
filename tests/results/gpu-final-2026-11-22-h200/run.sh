#!/bin/bash
# Final device call: build the tarball with CUDA, run every GPU test
# (CUDA-core designs, tensor cores, dual-side), the loom program on cuda
# (save + verify), compute-sanitizer on the quick suites, the dual-side GPU
# benchmark.  Logs to $OUT.
R=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
T0=$(date +%s); t() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvcc --version | tail -1; } > $OUT/device.txt 2>&1
cat $OUT/device.txt
cd /tmp && rm -rf loom-0.1.0 && tar xzf $R/loom-0.1.0.tar.gz && cd loom-0.1.0
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" && make -j16 && \
  make -j16 tests/test_cuda tests/test_tc tests/test_dual tests/test_dual_cuda tests/test_api tests/test_select && \
  make -j16 bench/dual_gpu_bench && make cuda-check-spills tc-check-spills) > $OUT/build.log 2>&1
t "build rc=$?"; grep -i "spill" $OUT/build.log | tail -3
for tst in test_cuda test_tc test_dual_cuda test_dual test_api test_select; do
  timeout 200 ./tests/$tst > $OUT/$tst.log 2>&1; t "$tst rc=$?"; grep -E "PASSED|FAILED|SKIP|checked" $OUT/$tst.log | tail -3
done
timeout 120 env srcdir=. sh tests/test_tool.sh > $OUT/test_tool.log 2>&1; t "test_tool.sh rc=$?"; tail -2 $OUT/test_tool.log
./tools/loom info --hardware > $OUT/hardware.txt 2>&1; cat $OUT/hardware.txt | head -20
./tools/loom spmm -n 64 --backend cuda --design eb-rm-pr:chunk=256,lanes=8 --save /tmp/gpu.loom > $OUT/spmm_cuda.txt 2>&1; t "spmm cuda rc=$?"
./tools/loom verify /tmp/gpu.loom >> $OUT/spmm_cuda.txt 2>&1; t "verify rc=$?"; cp /tmp/gpu.loom $OUT/gpu-run.loom 2>/dev/null
./tools/loom spmm -n 64 --backend cuda --design rb-rm-tc:f16,k=16 >> $OUT/spmm_cuda.txt 2>&1; t "spmm cuda tc rc=$?"
export LOOM_CUDA_TEST_QUICK=1
for tool in memcheck racecheck; do
  timeout 100 ./libtool --mode=execute compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/sanitizer-$tool.log 2>&1; t "$tool test_cuda rc=$?"
  timeout 60 ./libtool --mode=execute compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 9 tests/test_dual_cuda >> $OUT/sanitizer-$tool.log 2>&1; t "$tool test_dual_cuda rc=$?"
  grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" $OUT/sanitizer-$tool.log
done
timeout 150 ./bench/dual_gpu_bench --size 4096 --reps 3 --csv $OUT/dual_gpu.csv > $OUT/dual_gpu.txt 2>&1; t "dual bench rc=$?"; tail -25 $OUT/dual_gpu.txt
