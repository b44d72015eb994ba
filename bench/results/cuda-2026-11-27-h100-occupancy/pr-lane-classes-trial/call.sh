#!/bin/bash
# session 25 call 6: A/B of RB + PR lane classes at N <= 4; A = cc4f1ae, B = + change
export OUT=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
TEST_TIMEOUT=200 ONLY=all RMAT=1e6,1e7 NS=1,2,4,8 ROUNDS=2 BUD=8 bash bench/gpu_ab_run.sh
cd /tmp/B && LOOM_CUDA_TEST_QUICK=1 timeout 150 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?"; grep -h "ERROR SUMMARY" $OUT/memcheck.log | tail -1
