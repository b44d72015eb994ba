#!/bin/bash
# session 25 call 2: A/B of the RB wide walk's shape (4 blocks/SM, fewer loads ahead); A = 19f4027, B = + change
export OUT=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
TEST_TIMEOUT=150 ONLY=bcsstk33,bcsstk16,bcsstk13,bayer10,USpowerGrid,add32,bcspwr10,crack,citeseer_allx,fidapex6,rgg,copter2,wing,sparse-images,mdual,luxembourg,pubmed,astro-ph,Groebner,MIT8 \
  RMAT=1e6,1e7 NS=16,32,64,128,256,512 ROUNDS=2 BUD=8 bash bench/gpu_ab_run.sh
cd /tmp/B && LOOM_CUDA_TEST_QUICK=1 timeout 120 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?"; grep -h "ERROR SUMMARY" $OUT/memcheck.log | tail -1
