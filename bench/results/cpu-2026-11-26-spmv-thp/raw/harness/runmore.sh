#!/bin/bash
# Three more before/after pairs (runs 4-6), as runall.sh, with the VM's load sampled every 5 s
# (other processes' CPU share, from /proc/stat minus ours is not separable: the log gives the
# load average and the busiest processes other than cpu_bench).
R=bench/results/cpu-2026-11-26-spmv-thp/raw
Q=$R/harness/waitquiet.sh
BEFORE=/tmp/spmv2-before/bench/cpu_bench
AFTER=./bench/cpu_bench
( while :; do echo "$(date +%T) $(cut -d' ' -f1-3 /proc/loadavg) $(ps -eo pcpu,comm --sort=-pcpu --no-headers | grep -v cpu_bench | head -2 | tr -s ' ' | tr '\n' ';')"; sleep 5; done ) > $R/load-4-6.log &
SAMPLER=$!
for i in 4 5 6; do
  for v in before after; do
    if [ $v = before ]; then B=$BEFORE; else B=$AFTER; fi
    $Q 300 2>> $R/quiet.log
    nice -n -20 $B --data /work/shared/data/bench --filter NO_FILE_MATCHES --n 1 --rounds 5 \
      --out $R/large-$v-$i > $R/large-$v-$i.txt 2>/dev/null
  done
done
kill $SAMPLER
echo done
