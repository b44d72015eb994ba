#!/bin/bash
# session 34 call 3 (H200): Nsight Compute on R-MAT 1e7 at N = 512, f32,
# where loom's best design (EB + SR, chunk 1024, 64-column slabs) takes
# 1.17x cuSPARSE ALG2's time on this device (1.09x on an H100): the walk's
# kernel against csrmm_alg2_kernel, with the memory, warp-state and
# scheduler sections, to see which limit each meets.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c3
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" && make -j16 lib/libloom.la bench/gpu_bench) > $OUT/c3/build.log 2>&1
echo "build rc=$? at $(el)s"
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
MX="--metrics l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum"
run_ncu() { # name kernel-regex skip configs
  LOOM_BENCH_CONFIGS="$4" timeout 200 ncu --clock-control none $S $MX -k regex:"$2" --launch-skip $3 --launch-count 1 \
    ./bench/gpu_bench --only no-real-matrix --rmat 1e7 --n 512 --dtypes f32 --confirm 0 --budget-ms 1 --out /tmp/gb_$1 \
    > $OUT/c3/ncu_$1.txt 2>&1
  echo "ncu $1 rc=$? at $(el)s"; grep -E "Duration|DRAM Throughput|L2 Hit|L1/TEX Hit|Achieved Occupancy|Mem Busy|Max Bandwidth" $OUT/c3/ncu_$1.txt | head -12
}
run_ncu loom_eb1024 "eb_sr_segments_kernel" 3 "eb-rm-sr:chunk=1024,vdl,csc"
run_ncu cusparse_alg2 "csrmm_alg2" 1 "eb-rm-sr:chunk=1024,vdl,csc"
run_ncu loom_rb "rb_sr_wide" 1 "rb-rm-sr:vdl,csc"
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
