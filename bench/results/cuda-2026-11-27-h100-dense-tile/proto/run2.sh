#!/bin/bash
# call 2 of the prototype: build here, time all variants, ncu stall reasons at 1000 x 2048, N = 512
cd "$(dirname "$0")"
nvcc -std=c++17 -O3 --fmad=false -arch=sm_90 -I../../../../backends/cuda -I../../../../include -I../../../../lib -I../../../.. -o /tmp/proto proto.cu -lcusparse || exit 1
/tmp/proto > $OUT/proto.txt 2>&1; cat $OUT/proto.txt
timeout 240 ncu --clock-control none -k regex:"v1_kernel|v3_kernel" \
  --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.per_cycle_active,smsp__inst_executed.sum,sm__warps_active.avg.per_cycle_active,gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed_op_shared_ld.sum" \
  /tmp/proto ncu > $OUT/ncu_stalls.txt 2>&1
echo "ncu rc=$?"
