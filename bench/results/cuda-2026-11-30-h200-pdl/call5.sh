#!/bin/bash
# Session 49 call 5 (H200): where email-Enron's N = 1 time goes, loom
# (EB + SR chunk 128, the best design as chains, and RB + PR 32 lanes)
# against cuSPARSE, kernel by kernel under Nsight Compute (B's build).
# Carry: .devrun/B.tar.gz, .devrun/cmocka, .devrun/bd (email-Enron).
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c5; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/B && tar xzf $R/B.tar.gz -C /tmp/B --strip-components=1 && cd /tmp/B &&
    ./configure -q > $O/build.log 2>&1 && make -j16 lib/libloom.la bench/gpu_bench >> $O/build.log 2>&1
echo "built rc=$? at $(el)s"
m="gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
m="$m,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
m="$m,sm__cycles_active.avg,gpc__cycles_elapsed.max,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct"
args="--data $R/bd --only email-Enron --rmat , --n 1 --dtypes f32 --budget-ms 0.01 --confirm 0"
LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=128,vdl,csc;rb-rm-pr:lanes=32,vdl;eb-rm-sr:chunk=64,vdl,csc" \
    timeout 200 ncu --clock-control none --metrics $m --csv ./bench/gpu_bench $args --out $O/g > $O/ncu_metrics.csv 2> $O/ncu.err
echo "ncu metrics rc=$? at $(el)s"; grep -c '"gpu__time_duration.sum"' $O/ncu_metrics.csv
LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=128,vdl,csc" timeout 150 ncu --clock-control none --set full -c 2 --launch-skip 4 \
    -k regex:"eb_" --csv ./bench/gpu_bench $args --out $O/g2 > $O/ncu_full_eb.csv 2>> $O/ncu.err
echo "ncu full rc=$? at $(el)s"
LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=128,vdl,csc" timeout 100 ./bench/gpu_bench $args --graph 20 --out $O/g3 > $O/graph.txt 2>&1
tail -3 $O/graph.txt
gzip -f $O/*.csv $O/*.log 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c5.tgz -C /tmp c5
echo "done at $(el)s"
