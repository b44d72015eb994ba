#!/bin/bash
# Run from /work/wt-spmv.  BEFORE: the pre-branch tree (commit 4cacb07) built in /tmp/loom-before
# with this branch's bench/cpu_bench.c (for --rounds); AFTER: this tree.
R=bench/results/cpu-2026-11-25-spmv-floor/raw
BEFORE=/tmp/loom-before/bench/cpu_bench
AFTER=./bench/cpu_bench
for i in 1 2 3; do
  for v in before after; do
    if [ $v = before ]; then B=$BEFORE; else B=$AFTER; fi
    nice -n -20 $B --data /work/shared/data/bench --filter NO_FILE_MATCHES --n 1 --rounds 5 \
      --out $R/large-$v-$i > $R/large-$v-$i.txt 2>/dev/null
  done
done
for v in after before; do
  if [ $v = before ]; then B=$BEFORE; else B=$AFTER; fi
  nice -n -20 $B --data /work/shared/data/bench --no-synthetic --n 1 --rounds 3 \
    --out $R/real-n1-$v > $R/real-n1-$v.txt 2>/dev/null
done
cd /tmp/ab
for sc in 21 22 -21 -1; do
  echo "== input $sc"
  nice -n -20 ./spmvab $sc 2 12 rb-rm-sr LOOM_OMP_RELABEL=0,LOOM_OMP_SELL_WINDOW=1073741824 \
    LOOM_OMP_SELL_WINDOW=1073741824 LOOM_OMP_RELABEL=0 -
done > /work/wt-spmv/$R/ablation.txt 2>&1
for sc in 21 22 -1; do
  echo "== plan cost, input $sc: relabeling alone (no sliced copies, no race)"
  nice -n -20 ./spmvab $sc 2 1 rb-rm-sr LOOM_OMP_NO_SLICES=1,LOOM_OMP_RELABEL=0 LOOM_OMP_NO_SLICES=1 \
    LOOM_OMP_NO_SLICES=1,LOOM_OMP_RELABEL=0 LOOM_OMP_NO_SLICES=1
done > /work/wt-spmv/$R/plan-cost.txt 2>&1
for sc in 21 22 -1; do for i in 1 2; do for v in before after; do
  if [ $v = before ]; then P=./spmvab_before; else P=./spmvab; fi
  echo -n "input $sc $v $i: "; nice -n -20 $P $sc 2 10 rb-rm-sr - | grep "^-"
done; done; done > /work/wt-spmv/$R/process-ab.txt 2>&1
echo done
