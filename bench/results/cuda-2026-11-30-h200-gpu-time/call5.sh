#!/bin/bash
# session 47 call 5 (H200): issue #4's record as lone calls (gpu_bench's
# default: each call from an idle GPU, its host work inside the figure) and
# as GPU time (gpu_bench --gpu-time, new: each call queued behind a 100 us
# spin kernel), f32, every real matrix and R-MAT 1e6 and 1e7, N = 1..512, one
# build, one machine, one after the other; short budgets (4 ms a figure,
# one confirmation round) so both fit one call.
# Carry: .devrun/loom-0.1.0.tar.gz (make dist of main + --gpu-time),
# .devrun/benchdata (../shared/data/bench/*.mtx.gz less soc-Slashdot0902,
# whose 3 MB did not fit the call's 64 MiB).
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c5; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/L && tar xzf $R/loom-0.1.0.tar.gz -C /tmp/L --strip-components=1 && cd /tmp/L &&
  ./configure -q > $O/build.log 2>&1 && make -j16 lib/libloom.la bench/gpu_bench >> $O/build.log 2>&1
echo "built rc=$? at $(el)s"
ARGS="--data $R/benchdata --rmat 1e6,1e7 --dtypes f32 --budget-ms 4 --confirm 1"
timeout 230 ./bench/gpu_bench $ARGS --out $O/lone > $O/lone.txt 2>&1
echo "lone rc=$? at $(el)s"; grep "^# " $O/lone.txt | head -12
left=$(( 560 - $(el) ))
timeout $left ./bench/gpu_bench $ARGS --gpu-time --out $O/gputime > $O/gputime.txt 2>&1
echo "gpu-time rc=$? at $(el)s"; grep "^# " $O/gputime.txt | head -12
gzip -f $O/*.csv $O/*.txt $O/*.log 2>/dev/null; gunzip $O/device.txt.gz
mkdir -p $OUT && tar czf $OUT/c5.tgz -C /tmp c5
echo "done at $(el)s"
