#!/bin/bash
# session 36 call 1 (H200): main (92273ef) - the tensor-core record
# (bench/tc_gpu_run.sh: build, SASS, test_tc, tc_bench on every DLMC layer
# at N = 64..512, no probe: the recorded model).
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz (dlmc_pack.py's form of
# ../shared/data/dlmc: the tree travels in 64 MiB).
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c1
R=$(pwd)/.devrun; D=$(dirname $0)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c1/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc
echo "DLMC layers: $(find .tc-gpu/dlmc -name '*.smtx' | wc -l) at $(el)s"
SKIP_PROBE=1 TC_BASELINE=/none BENCH_BUDGET=300 OUT=$OUT/c1/tc bash bench/tc_gpu_run.sh > $OUT/c1/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "test_tc rc|cases|SPILL|PASSED|FAILED" $OUT/c1/tc_console.txt | head
sed -n '/^summary/,$p' $OUT/c1/tc/tc_bench.txt | head -40
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
