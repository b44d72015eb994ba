#!/bin/bash
# session 44 call 3 (H200): call 2 found the spread rows slower (0.85x on
# the layers with a row past 100 non-zeros): the last part to count in
# added the 8 sums by segment_tree's in-place steps, a chain of L2 round
# trips, twice.  Now segment_output loads up to 8 sums at once and adds
# them in registers.  Here: the plain build (no tuning knobs, whose
# getenv calls cost every launch of call 2's build ~0.4 us) against main
# at d9ecca7 in the same process, all 452 layers, N = 64, 128, 512 (tensor
# cores only) and N = 256 (with cuSPARSE and cuBLAS); then a tuning build
# (fp16 only) with the knobs turned one at a time on the 180 layers with a
# row past 100 non-zeros; then memcheck and racecheck on test_tc's
# rows-form cases.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline11.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c3; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_long --max-row-over 100 | tail -1
echo "unpacked at $(el)s"
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline11 \
    BENCH_ARGS="--n 64,128,512 --only-tc" BENCH_BUDGET=100 OUT=$O/all bash bench/tc_gpu_run.sh > $O/all_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/all_console.txt | head -16
sed -n '/^against the baseline/,/^summary/p' $O/all/tc_bench.txt | head -13
B=/tmp/loom-tc-build
timeout 200 $B/tc_bench --dlmc /tmp/dlmc_all --n 256 --reps 10 --budget 180 --csv $O/full256.csv > $O/full256.txt 2>&1
echo "full N=256 rc=$? at $(el)s"
sed -n '/^against the baseline/,/^summary/p' $O/full256.txt | head -5
sed -n '/^auto/,$p' $O/full256.txt | head -12
# the tuning build, fp16 kernels only, linked as tc_gpu_run links tc_bench
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
F="-gencode=arch=compute_90,code=sm_90 -std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
$NV $F -DLOOMTC_TUNING -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm_t.o && \
  $NV -gencode=arch=compute_90,code=sm_90 -o $B/tc_bench_t $B/tc_bench.o $B/tc_spmm_t.o $B/tc_tiles.o $B/tc_base.o \
       $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz
echo "tuning build rc=$? at $(el)s"
for v in LOOMTC_NONE=1 LOOMTC_RX_SPREAD_GROUPS=0 LOOMTC_RX_SNAKE=0 LOOMTC_RX_SPREAD_GROUPS=16 LOOMTC_RX_SPREAD_MEAN=3; do
  [ $(el) -gt 330 ] && break
  n=$(echo $v | tr '=' '_')
  env $v timeout 40 $B/tc_bench_t --dlmc /tmp/dlmc_long --only-tc --n 256,512 --reps 10 --budget 30 --csv $O/$n.csv > $O/$n.txt 2>&1
  echo "$v rc=$? at $(el)s"
  sed -n '/^against the baseline/,/^summary/p' $O/$n.txt | grep " all " | head -2
done
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  left=$(( 560 - $(el) )); [ $left -lt 40 ] && { echo "no time for $tool"; continue; }
  extra=""; [ $tool = memcheck ] && extra="--leak-check full"
  LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-} LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$REPO/bench/results/tc/model.txt \
      timeout $(( left / 2 )) $CS --tool $tool $extra $B/test_tc > $O/${tool}_rows.txt 2>&1
  echo "$tool rc=$? at $(el)s"; grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|\[ *(OK|FAILED|PASSED) *\]" $O/${tool}_rows.txt | tail -10
done
cp $B/tc_spmm.ptxas.log $O/ 2>/dev/null
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt $O/*.log 2>/dev/null
gunzip $O/device.txt.gz $O/all_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c3.tgz -C /tmp c3
echo "done at $(el)s"
