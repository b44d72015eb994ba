#!/bin/bash
# session 38 call 3 (H200): the resident kernel with branch-free record loads
# (working tree) against call 1's kernel, 6e56bb2 (the baseline, timed
# in the same tc_bench process and compared bit for bit), every DLMC layer at
# N = 64..512; test_tc; Nsight Compute on 33288 x 512 at 0.95 (N = 256);
# memcheck on test_tc's rows-form cases.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline2.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c3
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c3/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc
echo "DLMC layers: $(find .tc-gpu/dlmc -name '*.smtx' | wc -l) at $(el)s"
SKIP_PROBE=1 TC_BASELINE=$R/baseline2 BENCH_BUDGET=300 OUT=$OUT/c3/tc bash bench/tc_gpu_run.sh > $OUT/c3/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|baseline" $OUT/c3/tc_console.txt | head -20
sed -n '/^against the baseline/,/^summary/p' $OUT/c3/tc/tc_bench.txt | head -30
sed -n '/^auto/,$p' $OUT/c3/tc/tc_bench.txt | head -24
S=.tc-gpu/dlmc/transformer/magnitude_pruning/0.95; P=.tc-gpu/prof_c/transformer/magnitude_pruning/0.95
mkdir -p $P && cp $S/symbol_modality_33288_512_shared_.smtx $P/
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 120 $NCU --clock-control none --kernel-name regex:'loomtc::tc_resident' --launch-skip 1 --launch-count 1 --set full \
    -o $OUT/c3/prof_c /tmp/loom-tc-build/tc_bench --dlmc .tc-gpu/prof_c --n 256 --only-tc --reps 1 --batches 1 > $OUT/c3/ncu_c.log 2>&1
echo "ncu rc=$? at $(el)s"
$NCU -i $OUT/c3/prof_c.ncu-rep --page details > $OUT/c3/details_c.txt 2>&1
$NCU -i $OUT/c3/prof_c.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > $OUT/c3/source_sass_c.csv.gz
rm -f $OUT/c3/prof_c.ncu-rep
grep -E "tc_resident|Duration|Issued Ipc|Executed Instructions  |Registers Per" $OUT/c3/details_c.txt | head
if [ $(el) -lt 420 ]; then
  export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$OUT/c3/tc/model.txt timeout $(( 560 - $(el) )) $CS --tool memcheck --leak-check full \
      /tmp/loom-tc-build/test_tc > $OUT/c3/memcheck_rows.txt 2>&1
  echo "memcheck rc=$? at $(el)s"; tail -4 $OUT/c3/memcheck_rows.txt
fi
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
