#!/bin/bash
# session 25 call 4: A/B of tile-major short items in the binned and segments walks; A = 4db20d8, B = + change
export OUT=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
TEST_TIMEOUT=150 ONLY=all RMAT=1e6,1e7 NS=128,256,512 ROUNDS=2 BUD=8 bash bench/gpu_ab_run.sh
cd /tmp/B && LOOM_CUDA_TEST_QUICK=1 timeout 120 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?"; grep -h "ERROR SUMMARY" $OUT/memcheck.log | tail -1
