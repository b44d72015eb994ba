#!/bin/bash
# session 39 call 1 (H200): the gather kernel's chunks by one zero-fill
# cp.async each (working tree) against main's kernel (f40cae9, the baseline,
# timed in the same tc_bench process and compared bit for bit), every DLMC
# layer at N = 64..512; test_tc; Nsight Compute instruction counts of both
# kernels on a 512 x 2048 layer at 0.95 (N = 256); memcheck on test_tc's
# rows-form cases.  Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline5.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c1; mkdir -p $O
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc
echo "DLMC layers: $(find .tc-gpu/dlmc -name '*.smtx' | wc -l) at $(el)s"
SKIP_PROBE=1 TC_BASELINE=$R/baseline5 BENCH_BUDGET=300 OUT=$O/tc bash bench/tc_gpu_run.sh > $O/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|baseline" $O/tc_console.txt | head -20
sed -n '/^against the baseline/,/^summary/p' $O/tc/tc_bench.txt | head -30
sed -n '/^auto/,$p' $O/tc/tc_bench.txt | head -24
S=.tc-gpu/dlmc/rn50/magnitude_pruning/0.95; P=.tc-gpu/prof_a/rn50/magnitude_pruning/0.95
mkdir -p $P && cp $S/bottleneck_1_block_group4_1_1.smtx $P/
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 150 $NCU --clock-control none --kernel-name regex:'tc_spmm_kernel' --launch-count 8 \
    --section SpeedOfLight --section InstructionStats --section LaunchStats \
    /tmp/loom-tc-build/tc_bench --dlmc .tc-gpu/prof_a --n 256 --reps 1 --batches 1 > $O/ncu_a.txt 2>&1
echo "ncu rc=$? at $(el)s"
grep -E "tc_spmm_kernel|Duration|Executed Instructions  |Registers Per" $O/ncu_a.txt | cut -c1-150 | head -40
if [ $(el) -lt 440 ]; then
  export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$O/tc/model.txt timeout $(( 570 - $(el) )) $CS --tool memcheck --leak-check full \
      /tmp/loom-tc-build/test_tc > $O/memcheck_rows.txt 2>&1
  echo "memcheck rc=$? at $(el)s"; tail -4 $O/memcheck_rows.txt
fi
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
