#!/bin/bash
# session 48 call 6 (H200): when the next call's kernel may be placed.
# main (027f6dc) lets it be placed as soon as all of this kernel's blocks
# have started (griddepcontrol.launch_dependents first thing); "late"
# (trial_late_trigger.patch) leaves that out, so it is placed as this
# kernel's blocks end.  Both timed as CUDA graphs at N = 64 and 256 against
# baseline17 (no PDL), tensor cores only, one after the other in one
# session; test_tc on main.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline17, .devrun/var_late.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c6; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline17 TC_VARIANTS="late=$R/var_late/tc_spmm.cu" \
    BENCH_ARGS="--n 64,256 --graph --only-tc" BENCH_BUDGET=70 OUT=$O/main bash bench/tc_gpu_run.sh > $O/main_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|SPILL|PASSED|FAILED|FAIL|kernels compiled|variant" $O/main_console.txt | head -12
sed -n '/^against the baseline/,/^summary/p' $O/main/tc_bench.txt | head -10
B=/tmp/loom-tc-build
export LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
timeout 100 $B/tc_bench_late --dlmc /tmp/dlmc_all --reps 10 --budget 70 --n 64,256 --graph --only-tc --csv $O/late.csv > $O/late.txt 2>&1
echo "late rc=$? at $(el)s"
sed -n '/^against the baseline/,/^summary/p' $O/late.txt | head -10
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt 2>/dev/null
gunzip $O/device.txt.gz $O/main_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c6.tgz -C /tmp c6
echo "done at $(el)s"
