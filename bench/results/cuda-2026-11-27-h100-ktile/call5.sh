#!/bin/bash
# session 28 call 5: why the K-tile prototype's time does not move with N
# on final_dense: ncu's warp-state and scheduler sections on its V4 KT128
# 32-row kernel at N = 512 (the first launch of that N).
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > "$OUT/device.txt" 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q --without-cmocka && make -j16 lib/libloom.la) > "$OUT/build.log" 2>&1 ||
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" && make -j16 lib/libloom.la) >> "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"
nvcc -std=c++17 -arch=sm_90 -O3 --fmad=false -lineinfo -I include "$R/ktile.cu" -o /tmp/ktile \
  -L lib/.libs -lloom -Xlinker -rpath -Xlinker "$PWD/lib/.libs" -lcusparse > "$OUT/ktile_build.log" 2>&1
echo "ktile build rc=$? at $(el)s"
timeout 200 ncu --clock-control none --section WarpStateStats --section SchedulerStats --section Occupancy \
  --section LaunchStats --section MemoryWorkloadAnalysis --kernel-name-base mangled -k regex:"ktile_kernelILi4ELi128" --launch-skip 84 --launch-count 1 \
  /tmp/ktile "$R/benchdata/dlmc_rn50_mp0.8_final_dense.mtx.gz" > "$OUT/ncu_ktile.txt" 2>&1
echo "ncu rc=$? at $(el)s"; grep -vE "^  loom|^  cusparse|^  ktile|^ N =|^==PROF==" "$OUT/ncu_ktile.txt" | grep -E "Stall|stall|Warp Cycles|Issued|Eligible|Active Warps|Duration|Theoretical|Achieved|Registers|Shared Memory|Block Limit|Throughput|Hit|N = " | head -60
timeout 100 ncu --clock-control none --metrics \
  smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_branch_resolving,smsp__pcsamp_warps_issue_stalled_drain,smsp__pcsamp_warps_issue_stalled_sleeping,smsp__pcsamp_warps_issue_stalled_tex_throttle,smsp__pcsamp_warps_issue_stalled_imc_miss,smsp__pcsamp_sample_count \
  --kernel-name-base mangled -k regex:"ktile_kernelILi4ELi128" --launch-skip 84 --launch-count 1 /tmp/ktile "$R/benchdata/dlmc_rn50_mp0.8_final_dense.mtx.gz" > "$OUT/ncu_stalls.txt" 2>&1
echo "ncu2 rc=$? at $(el)s"; grep -E "pcsamp" "$OUT/ncu_stalls.txt" | head -30
