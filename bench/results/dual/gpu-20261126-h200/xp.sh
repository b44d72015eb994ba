#!/bin/bash
# experiment session: the standard run, then variants
CMOCKA_DIR=$PWD/.dualgpu/cmocka LIMIT=${LIMIT:-330} BENCH_BUDGET=${BENCH_BUDGET:-180} OUT=$OUT bash bench/dual_gpu_run.sh > /dev/null 2>&1
cat $OUT/summary.txt
B=/tmp/loom-dual-build
export LD_LIBRARY_PATH=$B:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
{
for s in ${XP_SPARSITY:-0.8 0.9}; do
  [ "$s" = skip ] && continue
  for xp in ${XP_LINES:-7 8 6 4 7 8}; do
    echo "== LOOM_XP_LINES=$xp sparsity $s"
    LOOM_XP_LINES=$xp timeout 60 $B/dual_gpu_bench --no-conv --sparsity $s --reps 9 | grep -E "^ *[0-9.]+%"
  done
done
for v in ${XP_CONV:-"LOOM_XP_BATCH=8" "LOOM_XP_DENSE=1" "LOOM_XP_BATCH=4"}; do
  echo "== $v Table III"
  env $v timeout 60 $B/dual_gpu_bench --no-spgemm --conv-reps 5 | grep -E "^ *[0-9.]+%|norm"
done
} 2>&1 | tee $OUT/xp.txt
