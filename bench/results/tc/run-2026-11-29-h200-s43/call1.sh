#!/bin/bash
# session 43 call 1 (H200): long rows in segments (several blocks a row,
# reference/tc_model.h step 4).  main at c28c029 as tc_bench's baseline
# (same process; bits differ by design on rows that are cut).  The DLMC
# layers with a row of more than 256 non-zeros (64 of 452), N = 64, 256,
# 512, tensor-core kernels only: the default cut (TC_SEGMENT_GROUPS = 32),
# then TC_SEGMENT_GROUPS = 16 (kernels and reference rebuilt alike).
# test_tc runs each build against its own reference.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline10.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c1; mkdir -p $O
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz /tmp/dlmc_all
python3 - <<'PY'
import os, shutil
n = 0
for root, _, files in os.walk('/tmp/dlmc_all'):
    for f in files:
        p = os.path.join(root, f)
        lines = open(p).read().split('\n')
        ro = [int(t) for t in lines[1].split()]
        if max(b - a for a, b in zip(ro, ro[1:])) > 256:
            d = root.replace('/tmp/dlmc_all', '/tmp/dlmc_long')
            os.makedirs(d, exist_ok=True); shutil.copy(p, d); n += 1
print('layers with a row of more than 256 non-zeros:', n)
PY
echo "unpacked at $(el)s"
for H in 32 16; do
  FL=""; [ $H != 32 ] && FL="-DTC_SEGMENT_GROUPS=$H"
  LOOM_DLMC=/tmp/dlmc_long TC_FLAGS="$FL" SKIP_PROBE=1 TC_BASELINE=$R/baseline10 BENCH_ARGS="--n 64,256,512 --only-tc" \
      BENCH_BUDGET=110 OUT=$O/h$H bash bench/tc_gpu_run.sh > $O/h${H}_console.txt 2>&1
  echo "H=$H tc_gpu_run rc=$? at $(el)s"
  grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/h${H}_console.txt | head -14
  sed -n '/^against the baseline/,/^summary/p' $O/h$H/tc_bench.txt | head -16
  cp /tmp/loom-tc-build/tc_spmm.ptxas.log $O/h$H/ 2>/dev/null
done
gzip -9 $O/h*/tc_bench.txt $O/h*/tc_bench.csv $O/h*/tc_spmm.ptxas.log $O/h*/test_tc.txt 2>/dev/null
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
