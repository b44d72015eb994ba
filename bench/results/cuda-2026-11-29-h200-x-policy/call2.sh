#!/bin/bash
# session 39 call 2 (H200): X's L2 policy at N = 1 (issue #4's R-MAT SpMV).
# The narrow EB + SR walk gathers x under createpolicy.fractional
# L2::evict_last 1.0.  trial_x_policy.patch (in .devrun/loom-xpol.tar.gz,
# make dist of main + the patch) picks the policy by LOOMCU_X_HINT:
#   0 evict_last 1.0 (main)   1 evict_last 0.5      2 evict_last 0.75
#   3 evict_normal            4 evict_last 0.5, the rest evict_first
#   5 evict_first             6 evict_last 0.75, the rest evict_first
# Speed only (the values loaded are the same).  One design, EB + SR chunk
# 1024 (the record's pick at N = 1 on R-MAT), against cuSPARSE in the same
# process; R-MAT 1e7 and 1e8, soc-Slashdot and email-Enron, f32 and f64.
# Carry .devrun/loom-xpol.tar.gz, .devrun/cmocka, .devrun/xdata.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c2; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/xp && tar xzf $R/loom-xpol.tar.gz -C /tmp/xp --strip-components=1 && cd /tmp/xp &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" > $O/build.log 2>&1 &&
  make -j16 lib/libloom.la bench/gpu_bench >> $O/build.log 2>&1
echo "build rc=$? at $(el)s"; tail -2 $O/build.log
cd /tmp/xp
for h in 0 1 2 3 4 5 6 0 3; do
  LOOMCU_X_HINT=$h LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=1024,vdl,csc" timeout 100 ./bench/gpu_bench --data $R/xdata \
     --rmat 1e7,1e8 --n 1 --dtypes f32,f64 --confirm 3 --budget-ms 20 --out $O/h$h-$(el) > $O/h${h}_$(el).txt 2>&1
  echo "hint $h rc=$? at $(el)s"
  grep -E "N=1 " $O/h${h}_*.txt | tail -8 | cut -c1-150
  [ $(el) -gt 520 ] && break
done
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
