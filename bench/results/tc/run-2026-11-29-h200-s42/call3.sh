#!/bin/bash
# session 42 call 3 (H200): the same working tree as call 2 (the kept
# 32-column strips, rule and selector tier) on the DLMC layers with
# K > 1613 at N = 64, 128 and 512, main at 6c446a6 as the baseline (same
# process, bits compared); then racecheck and synccheck on test_tc's
# rows-form cases (call 2 ran memcheck).
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline8.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c3; mkdir -p $O
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz /tmp/dlmc_all
python3 - <<'PY'
import os, shutil
for root, _, files in os.walk('/tmp/dlmc_all'):
    for f in files:
        p = os.path.join(root, f)
        m, k, nnz = [int(t) for t in open(p).readline().replace(',', ' ').split()[:3]]
        if k > 1613:
            d = root.replace('/tmp/dlmc_all', '/tmp/dlmc_k')
            os.makedirs(d, exist_ok=True); shutil.copy(p, d)
PY
LOOM_DLMC=/tmp/dlmc_k SKIP_PROBE=1 TC_BASELINE=$R/baseline8 BENCH_ARGS="--n 64,128,512" BENCH_BUDGET=150 \
    OUT=$O/tc bash bench/tc_gpu_run.sh > $O/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "build took|test_tc rc|SPILL|PASSED|FAILED|kernels compiled|baseline:" $O/tc_console.txt | head -12
sed -n '/^against the baseline/,/^summary/p' $O/tc/tc_bench.txt | head -14
sed -n '/^auto/,$p' $O/tc/tc_bench.txt | head -16
export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in racecheck synccheck; do
  left=$(( 560 - $(el) )); [ $left -lt 30 ] && break
  LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$O/tc/model.txt timeout $left $CS --tool $tool \
      /tmp/loom-tc-build/test_tc > $O/${tool}_rows.txt 2>&1
  echo "$tool rc=$? at $(el)s"; tail -3 $O/${tool}_rows.txt
done
gzip -9 $O/tc/tc_bench.txt $O/tc/tc_bench.csv $O/*_rows.txt 2>/dev/null
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
