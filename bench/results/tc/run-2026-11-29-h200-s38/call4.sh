#!/bin/bash
# session 38 call 4 (H200): the gather kernel prefetching each group's values into L1
# (working tree) against call 3's kernel, 18decab (the baseline, timed
# in the same tc_bench process and compared bit for bit), every DLMC layer at
# N = 64..512; test_tc; memcheck on test_tc's rows-form cases.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline3.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c4
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c4/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc
echo "DLMC layers: $(find .tc-gpu/dlmc -name '*.smtx' | wc -l) at $(el)s"
SKIP_PROBE=1 TC_BASELINE=$R/baseline3 BENCH_BUDGET=300 OUT=$OUT/c4/tc bash bench/tc_gpu_run.sh > $OUT/c4/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|baseline" $OUT/c4/tc_console.txt | head -20
sed -n '/^against the baseline/,/^summary/p' $OUT/c4/tc/tc_bench.txt | head -30
sed -n '/^auto/,$p' $OUT/c4/tc/tc_bench.txt | head -24
if [ $(el) -lt 420 ]; then
  export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$OUT/c4/tc/model.txt timeout $(( 560 - $(el) )) $CS --tool memcheck --leak-check full \
      /tmp/loom-tc-build/test_tc > $OUT/c4/memcheck_rows.txt 2>&1
  echo "memcheck rc=$? at $(el)s"; tail -4 $OUT/c4/memcheck_rows.txt
fi
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
