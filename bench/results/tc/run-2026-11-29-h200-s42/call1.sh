#!/bin/bash
# session 42 call 1 (H200): the resident-strip kernel in narrower strips
# (48, 32, 16 columns) for K past the 64-column strips' 1613 rows.
# LOOMTC_TUNING build (TC_FLAGS); main at 6c446a6 as tc_bench's baseline
# (timed in the same process, outputs compared bit for bit).  The DLMC
# layers with K > 1613, N = 128, 256, 512: the build's own rule (narrow
# strips where the resident rule takes them), then each width forced
# (LOOMTC_PATH=resident LOOMTC_RX_W=w: the widest strip allowed), the
# gather kernel forced, and the rule again.  test_tc runs every width
# through test_wide's forced paths.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline8.
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
        m, k, nnz = [int(t) for t in open(p).readline().replace(',', ' ').split()[:3]]
        if k > 1613:
            d = root.replace('/tmp/dlmc_all', '/tmp/dlmc_k')
            os.makedirs(d, exist_ok=True); shutil.copy(p, d); n += 1
print('layers with K > 1613:', n)
PY
echo "unpacked at $(el)s"
LOOM_DLMC=/tmp/dlmc_k TC_FLAGS=-DLOOMTC_TUNING SKIP_PROBE=1 TC_BASELINE=$R/baseline8 BENCH_ARGS="--n 128,256,512" \
    BENCH_BUDGET=100 OUT=$O/tc bash bench/tc_gpu_run.sh > $O/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|baseline|kernels compiled" $O/tc_console.txt | head -20
grep -E "resident strips|FAIL" $O/tc/test_tc.txt | head
sed -n '/^against the baseline/,/^summary/p' $O/tc/tc_bench.txt | head -20
run() { # name, then environment assignments
  local name=$1; shift
  env "$@" timeout 100 /tmp/loom-tc-build/tc_bench --dlmc /tmp/dlmc_k --n 128,256,512 --budget 80 --csv $O/$name.csv > $O/$name.txt 2>&1
  echo "$name ($*) rc=$? at $(el)s"
}
run w48 LOOMTC_PATH=resident LOOMTC_RX_W=48
run w32 LOOMTC_PATH=resident LOOMTC_RX_W=32
run w16 LOOMTC_PATH=resident LOOMTC_RX_W=16
run gather LOOMTC_PATH=gather
[ $(el) -lt 470 ] && run rule2 LOOM_NOTHING=1
cp /tmp/loom-tc-build/tc_spmm.ptxas.log $O/ 2>/dev/null
gzip -9 $O/tc/tc_bench.txt $O/tc/tc_bench.csv $O/*.csv $O/*.txt 2>/dev/null
gunzip $O/device.txt.gz $O/tc_console.txt.gz 2>/dev/null
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
