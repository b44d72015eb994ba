#!/bin/bash
# session 29 call 11: what cuSPARSE's CSR ALG3 does on DLMC rn50 mp0.8
# final_dense at N = 64 and 256 (the worst cases of issue #4), beside
# loom's best designs there: every kernel's launch shape and memory
# metrics under ncu (one launch each after warm-up).
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"
mkdir -p /tmp/fd && ln -sf $R/benchdata/dlmc_rn50_mp0.8_final_dense.mtx.gz /tmp/fd/
M="gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.per_cycle_active,l1tex__t_sector_hit_rate.pct,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,smsp__inst_executed.sum"
for n in 64 256; do
  LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=128,vdl,csc,tile-major;eb-rm-sr:chunk=128,coarsen=1,csc;rb-rm-sr:vdl,csc" \
    timeout 200 ncu --clock-control none --metrics "$M" --launch-skip 0 --launch-count 400 \
    ./bench/gpu_bench --data /tmp/fd --rmat '' --n $n --dtypes f32 --budget-ms 1 --out /tmp/gb$n \
    > $OUT/ncu_n$n.txt 2>&1
  echo "ncu N=$n rc=$? at $(el)s"
done
cd $OUT && tar czf call.tgz ncu_n*.txt build.log device.txt && rm -f ncu_n*.txt build.log device.txt
