#!/bin/bash
# session 41 call 4 (H200): the resident strips may fill the whole
# multiprocessor's shared memory now that it runs one block there
# (trial_whole_sm.patch: K up to about 1600 rows instead of 802), against
# main at 49e39af (the baseline, timed in the same tc_bench process and
# compared bit for bit), every DLMC layer at N = 128, 256, 512; test_tc;
# memcheck on test_tc's rows-form cases.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline7.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c4; mkdir -p $O
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc
echo "DLMC layers: $(find .tc-gpu/dlmc -name '*.smtx' | wc -l) at $(el)s"
SKIP_PROBE=1 TC_BASELINE=$R/baseline7 BENCH_ARGS="--n 128,256,512" BENCH_BUDGET=280 OUT=$O/tc bash bench/tc_gpu_run.sh > $O/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|baseline" $O/tc_console.txt | head -20
sed -n '/^against the baseline/,/^summary/p' $O/tc/tc_bench.txt | head -30
sed -n '/^auto/,$p' $O/tc/tc_bench.txt | head -24
if [ $(el) -lt 420 ]; then
  export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$O/tc/model.txt timeout $(( 570 - $(el) )) $CS --tool memcheck --leak-check full \
      /tmp/loom-tc-build/test_tc > $O/memcheck_rows.txt 2>&1
  echo "memcheck rc=$? at $(el)s"; tail -4 $O/memcheck_rows.txt
fi
gzip -9 $O/tc/tc_bench.txt $O/tc/tc_bench.csv 2>/dev/null
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
