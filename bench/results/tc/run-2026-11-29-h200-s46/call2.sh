#!/bin/bash
# session 46 call 2 (H200): the resident kernel's record window and
# one-chunk rows (rx_feed, rx_single) against main at 7fc7654 (baseline14)
# in one process: test_tc, all 452 DLMC layers at N = 64, 128, 512 (tensor
# cores only) and at N = 256 with cuSPARSE and cuBLAS; Nsight Compute's
# instruction count on call 1's two layers; memcheck on the rows form,
# racecheck on test_spread.  Carry: .devrun/cmocka, .devrun/dlmc.npz.xz,
# .devrun/baseline14.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c2; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
S=/tmp/dlmc_all/transformer/magnitude_pruning/0.95
for p in c d; do mkdir -p /tmp/prof_$p/transformer/magnitude_pruning/0.95; done
cp $S/symbol_modality_33288_512_shared_.smtx /tmp/prof_c/transformer/magnitude_pruning/0.95/
cp $S/body_encoder_layer_4_ffn_conv1_fully_connected.smtx /tmp/prof_d/transformer/magnitude_pruning/0.95/
echo "unpacked at $(el)s"
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline14 \
    BENCH_ARGS="--n 64,128,512 --only-tc" BENCH_BUDGET=70 OUT=$O/all bash bench/tc_gpu_run.sh > $O/all_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/all_console.txt | head -16
sed -n '/^against the baseline/,/^summary/p' $O/all/tc_bench.txt | head -13
B=/tmp/loom-tc-build
timeout 90 $B/tc_bench --dlmc /tmp/dlmc_all --n 256 --reps 10 --budget 80 --csv $O/full256.csv > $O/full256.txt 2>&1
echo "full N=256 rc=$? at $(el)s"
sed -n '/^against the baseline/,/^summary/p' $O/full256.txt | head -5
sed -n '/^auto/,$p' $O/full256.txt | head -12
for p in c d; do
  timeout 60 ncu --clock-control none --kernel-name regex:tc_resident_kernel --launch-skip 1 --launch-count 1 \
      --metrics smsp__inst_executed.sum,gpu__time_duration.sum,sm__cycles_active.avg \
      $B/tc_bench --dlmc /tmp/prof_$p --n 256 --only-tc --reps 1 --batches 1 > $O/ncu_$p.txt 2>&1
  echo "ncu $p rc=$? at $(el)s"; grep -E "tc_resident|inst_executed|duration|cycles_active" $O/ncu_$p.txt | head -4
done
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  left=$(( 560 - $(el) )); [ $left -lt 30 ] && { echo "no time for $tool"; continue; }
  extra=""; [ $tool = memcheck ] && extra="--leak-check full"
  only=""; [ $tool = racecheck ] && only=test_spread
  LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-} LOOM_TC_TEST_ONLY=$only LOOM_TC_TEST_FORM=rows \
      timeout $left $CS --tool $tool $extra $B/test_tc > $O/${tool}_rows.txt 2>&1
  echo "$tool rc=$? at $(el)s"; grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|\[ *(OK|FAILED|PASSED) *\]" $O/${tool}_rows.txt | tail -11
done
cp $B/tc_spmm.ptxas.log $O/ 2>/dev/null
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt $O/*.log 2>/dev/null
gunzip $O/device.txt.gz $O/all_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c2.tgz -C /tmp c2
echo "done at $(el)s"
