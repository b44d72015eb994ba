#!/bin/bash
# session 29 call 2: with the sweep, the short walks' pair loads under
# three cache hints (LOOM_CUDA_AHINT: 0 streaming as committed, 1 __ldg,
# 2 L1::evict_last; a trial switch read at launch), interleaved 0 1 2 0 1 2
# on one build; EB chunks 2048 and 4096 beside 128 and 1024; then ncu on
# R-MAT 1e8 at N = 1 (chunk 1024): memory metrics and per-instruction
# source counters (SASS).
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"
for h in 1 2; do
  LOOM_CUDA_AHINT=$h LOOM_CUDA_TEST_QUICK=1 timeout 60 ./tests/test_cuda > $OUT/test_cuda_hint$h.log 2>&1
  echo "test_cuda quick hint $h rc=$? at $(el)s"; tail -n 1 $OUT/test_cuda_hint$h.log
done
mkdir -p /tmp/sub && for m in soc-Slashdot0902 mdual luxembourg_osm bcsstk33 citeseer_adj graphchallenge_n1024-l1; do
  ln -sf $R/benchdata/$m.mtx.gz /tmp/sub/; done
C="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc;eb-rm-sr:chunk=2048,vdl,csc;eb-rm-sr:chunk=4096,vdl,csc"
for run in h0a h1a h2a h0b h1b h2b; do
  h=${run:1:1}
  LOOM_CUDA_AHINT=$h LOOM_BENCH_CONFIGS="$C" timeout 75 ./bench/gpu_bench --data /tmp/sub --rmat 1e6,1e7,1e8 \
    --n 1,2,4 --dtypes f32 --budget-ms 10 --out $OUT/$run > $OUT/${run}_stdout.txt 2>&1
  echo "$run rc=$? at $(el)s"
done
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.per_cycle_active,smsp__issue_active.avg.per_cycle_active,launch__grid_size,launch__registers_per_thread"
LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=1024,vdl,csc" timeout 90 ncu --clock-control none --metrics "$M" \
  --kernel-name-base mangled -k regex:"narrow_segments" --launch-skip 3 --launch-count 1 \
  ./bench/gpu_bench --only no-real-matrix --rmat 1e8 --n 1 --dtypes f32 --budget-ms 1 --out /tmp/gb > $OUT/ncu_metrics.txt 2>&1
echo "ncu metrics rc=$? at $(el)s"; grep -E "duration|bytes|sectors|hit_rate|throughput|warps_active|issue_active|grid_size|registers" $OUT/ncu_metrics.txt | head -20
LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=1024,vdl,csc" timeout 150 ncu --clock-control none --section SourceCounters \
  --section WarpStateStats --kernel-name-base mangled -k regex:"narrow_segments" --launch-skip 3 --launch-count 1 \
  --page source --print-source sass --csv \
  ./bench/gpu_bench --only no-real-matrix --rmat 1e8 --n 1 --dtypes f32 --budget-ms 1 --out /tmp/gb \
  > $OUT/ncu_source.csv 2> $OUT/ncu_err.txt
echo "ncu source rc=$? at $(el)s"; wc -l $OUT/ncu_source.csv; tail -2 $OUT/ncu_err.txt
cd $OUT && tar czf call2.tgz h* *.log *.txt ncu_source.csv && rm -f h* *.log *.txt ncu_source.csv
