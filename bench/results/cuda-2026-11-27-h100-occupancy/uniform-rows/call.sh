#!/bin/bash
# session 25 call 5: A/B of no long bin for rows of one length with warps enough; A = 4db20d8, B = + change
export OUT=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/device.txt
TEST_TIMEOUT=150 ONLY=bcsstk16,mp0.5,final_dense,citeseer_allx,bcsstk33,graphchallenge,mbeacxc,MIT8,wing RMAT=, NS=32,64,128,256,512 ROUNDS=3 BUD=8 bash bench/gpu_ab_run.sh
