#!/bin/bash
# session 41 call 5 (H200): main at b368864 (the 16-warp resident kernel,
# strips up to the multiprocessor's shared memory, the refitted tiles
# rule): tc_bench on every DLMC layer at N = 256 (auto = the new rule);
# test_tc; racecheck and synccheck on test_tc's rows-form cases.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c5; mkdir -p $O
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc
SKIP_PROBE=1 TC_BASELINE=/none BENCH_ARGS="--n 256" BENCH_BUDGET=100 OUT=$O/tc bash bench/tc_gpu_run.sh > $O/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|resident strips" $O/tc_console.txt $O/tc/test_tc.txt | head -12
sed -n '/^auto/,$p' $O/tc/tc_bench.txt | head -8
export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in racecheck synccheck; do
  left=$(( 540 - $(el) )); [ $left -lt 30 ] && break
  LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$O/tc/model.txt timeout $left $CS --tool $tool \
      /tmp/loom-tc-build/test_tc > $O/${tool}_rows.txt 2>&1
  echo "$tool rc=$? at $(el)s"; tail -3 $O/${tool}_rows.txt
done
gzip -9 $O/tc/tc_bench.txt $O/tc/tc_bench.csv $O/*_rows.txt 2>/dev/null
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
