#!/bin/bash
# session 38 call 1 (H200): the resident kernel's paired short rows and
# masked chunks (working tree) against main's tc_spmm.cu (the baseline, timed
# in the same tc_bench process and compared bit for bit), every DLMC layer at
# N = 64..512; test_tc; memcheck on test_tc's rows-form cases.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c1
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c1/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc
echo "DLMC layers: $(find .tc-gpu/dlmc -name '*.smtx' | wc -l) at $(el)s"
SKIP_PROBE=1 TC_BASELINE=$R/baseline BENCH_BUDGET=300 OUT=$OUT/c1/tc bash bench/tc_gpu_run.sh > $OUT/c1/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|baseline" $OUT/c1/tc_console.txt | head -20
sed -n '/^against the baseline/,/^summary/p' $OUT/c1/tc/tc_bench.txt | head -30
sed -n '/^auto/,$p' $OUT/c1/tc/tc_bench.txt | head -24
if [ $(el) -lt 420 ]; then
  export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$OUT/c1/tc/model.txt timeout $(( 560 - $(el) )) $CS --tool memcheck --leak-check full \
      /tmp/loom-tc-build/test_tc > $OUT/c1/memcheck_rows.txt 2>&1
  echo "memcheck rc=$? at $(el)s"; tail -4 $OUT/c1/memcheck_rows.txt
fi
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
