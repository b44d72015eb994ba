#!/bin/bash
# session 42 call 5 (H200): the resident strip copied in four parts, each
# on its own shared-memory barrier, warps waiting only for the part their
# rows of X fall in (call 4's profile: 30-37% of the kernel's warp samples
# waited for the whole strip), against 005d2cc (the 32-column strips) as
# tc_bench's baseline (same process, bits compared): test_tc; every DLMC
# layer at N = 256; memcheck, racecheck, synccheck on test_tc's rows-form
# cases; then N = 512 and 128 while time is left.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline9.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c5; mkdir -p $O
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc
SKIP_PROBE=1 TC_BASELINE=$R/baseline9 BENCH_ARGS="--n 256" BENCH_BUDGET=110 OUT=$O/tc bash bench/tc_gpu_run.sh > $O/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|kernels compiled|baseline:" $O/tc_console.txt | head -14
grep -E "FAIL" $O/tc/test_tc.txt | head -5
sed -n '/^against the baseline/,/^summary/p' $O/tc/tc_bench.txt | head -6
sed -n '/^auto/,$p' $O/tc/tc_bench.txt | head -7
export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  left=$(( 470 - $(el) )); [ $left -lt 30 ] && break
  extra=""; [ $tool = memcheck ] && extra="--leak-check full"
  LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$O/tc/model.txt timeout $left $CS --tool $tool $extra \
      /tmp/loom-tc-build/test_tc > $O/${tool}_rows.txt 2>&1
  echo "$tool rc=$? at $(el)s"; tail -2 $O/${tool}_rows.txt
done
for n in 512 128; do
  left=$(( 575 - $(el) )); [ $left -lt 40 ] && break
  timeout $left /tmp/loom-tc-build/tc_bench --dlmc .tc-gpu/dlmc --n $n --budget $(( left - 25 )) --csv $O/n$n.csv > $O/n$n.txt 2>&1
  echo "N=$n rc=$? at $(el)s"; grep -E "^baseline:" $O/n$n.txt | head -2
  sed -n '/^against the baseline/,/^summary/p' $O/n$n.txt | head -5
done
gzip -9 $O/tc/tc_bench.txt $O/tc/tc_bench.csv $O/*_rows.txt $O/n*.csv $O/n*.txt 2>/dev/null
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
