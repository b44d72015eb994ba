#!/bin/bash
# Run from the worktree root (/work/wt-spmv2) after `make`.  BEFORE: main at 6b0f818, extracted
# with `git archive` into /tmp/spmv2-before and built there (./configure -q --enable-bench && make);
# AFTER: this tree.  /tmp/spmv2-ab/spmvab is ../cpu-2026-11-25-spmv-floor/raw/harness/ab_harness.c built against this tree
# (see the README).  Each run waits until the VM's CPUs are idle (waitquiet.sh).
R=bench/results/cpu-2026-11-26-spmv-thp/raw
Q=$R/harness/waitquiet.sh
BEFORE=/tmp/spmv2-before/bench/cpu_bench
AFTER=./bench/cpu_bench
for sc in 21 22 -1; do
  $Q 300
  echo "== input $sc: plan arrays on huge pages (-) or not (LOOM_HUGEPAGES=0); first config warms up"
  nice -n -20 /tmp/spmv2-ab/spmvab $sc 2 12 rb-rm-sr - LOOM_HUGEPAGES=0 - LOOM_HUGEPAGES=0 - LOOM_HUGEPAGES=0 -
done > $R/ablation-thp.txt 2>&1
for i in 1 2 3; do
  for v in before after; do
    if [ $v = before ]; then B=$BEFORE; else B=$AFTER; fi
    $Q 300 2>> $R/quiet.log
    nice -n -20 $B --data /work/shared/data/bench --filter NO_FILE_MATCHES --n 1 --rounds 5 \
      --out $R/large-$v-$i > $R/large-$v-$i.txt 2>/dev/null
  done
done
echo done
