#!/bin/bash
# session 45 call 3 (H200): the strip multicast.  The resident kernel's
# blocks each copied the whole strip of X from L2 (16.8 MB a launch on a
# 512 x 2048 layer at N = 256, ~3 us of L2 bandwidth in a ~11 us kernel);
# now clusters of 2 blocks (RX_CLUSTER) share it: each box of 32 rows is
# read once a cluster by the bulk tensor copy and multicast to both.
# Plain build against main at f258392 (the spread rows, baseline12) in one
# process: test_tc, all 452 layers at N = 64, 128, 512 (tensor cores
# only) and at N = 256 with cuSPARSE and cuBLAS; a tuning build (fp16)
# with LOOMTC_RX_CLUSTER = 1 (no multicast: the bias) and 4 at N = 256 and
# 512; memcheck and racecheck on test_tc's rows form.
# Carry: .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline12.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c3; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/* .tc-gpu/cmocka/
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
echo "unpacked at $(el)s"
LOOM_DLMC=/tmp/dlmc_all SKIP_PROBE=1 TC_BASELINE=$R/baseline12 \
    BENCH_ARGS="--n 64,128,512 --only-tc" BENCH_BUDGET=70 OUT=$O/all bash bench/tc_gpu_run.sh > $O/all_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"
grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|FAIL|kernels compiled" $O/all_console.txt | head -16
grep -E "FAIL|differ" $O/all/test_tc.txt | head -10
sed -n '/^against the baseline/,/^summary/p' $O/all/tc_bench.txt | head -13
B=/tmp/loom-tc-build
timeout 90 $B/tc_bench --dlmc /tmp/dlmc_all --n 256 --reps 10 --budget 80 --csv $O/full256.csv > $O/full256.txt 2>&1
echo "full N=256 rc=$? at $(el)s"
sed -n '/^against the baseline/,/^summary/p' $O/full256.txt | head -5
sed -n '/^auto/,$p' $O/full256.txt | head -12
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
F="-gencode=arch=compute_90,code=sm_90 -std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -Xptxas --suppress-async-bulk-multicast-advisory-warning"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
$NV $F -DLOOMTC_TUNING -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm_t.o && \
  $NV -gencode=arch=compute_90,code=sm_90 -o $B/tc_bench_t $B/tc_bench.o $B/tc_spmm_t.o $B/tc_tiles.o $B/tc_base.o \
       $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz
echo "tuning build rc=$? at $(el)s"
for v in 1 4 2; do
  [ $(el) -gt 420 ] && break
  LOOMTC_RX_CLUSTER=$v timeout 50 $B/tc_bench_t --dlmc /tmp/dlmc_all --only-tc --n 256,512 --reps 10 --budget 40 \
      --csv $O/cluster$v.csv > $O/cluster$v.txt 2>&1
  echo "cluster $v rc=$? at $(el)s"
  sed -n '/^against the baseline/,/^summary/p' $O/cluster$v.txt | grep " all " | head -2
done
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  left=$(( 540 - $(el) )); [ $left -lt 20 ] && { echo "no time for $tool"; continue; }
  extra=""; [ $tool = memcheck ] && extra="--leak-check full"
  LD_LIBRARY_PATH=$REPO/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-} LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$REPO/bench/results/tc/model.txt \
      timeout $(( left / 2 )) $CS --tool $tool $extra $B/test_tc > $O/${tool}_rows.txt 2>&1
  echo "$tool rc=$? at $(el)s"; grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|\[ *(OK|FAILED|PASSED) *\]" $O/${tool}_rows.txt | tail -11
done
cp $B/tc_spmm.ptxas.log $O/ 2>/dev/null
gzip -f $O/*/*.csv $O/*/*.txt $O/*.csv $O/*.txt $O/*.log 2>/dev/null
gunzip $O/device.txt.gz $O/all_console.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c3.tgz -C /tmp c3
echo "done at $(el)s"
