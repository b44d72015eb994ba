#!/bin/bash
# session 45 call 4 (H200): why call 3's strip multicast lost (0.90x with
# clusters of 2, 0.81-0.87x of 4, even on 512 x 128 where the strip is
# tiny): a tuning build (fp16) of the same code with the bulk copy alone
# (LOOMTC_RX_CLUSTER=0: no cluster, each block its own boxes) and boxes of
# 32 or 128 rows (LOOMTC_RX_BOX), against main at f258392 (baseline12) in
# one process; LOOMTC_RX_CLUSTER=1 is main's copy (the bias).  N = 64, 256,
# 512, tensor cores only, all 452 layers.  Builds only what tc_bench needs.
# Carry: .devrun/dlmc.npz.xz, .devrun/baseline12.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c4; mkdir -p $O
R=$(pwd)/.devrun; B=/tmp/loom-tc-build; mkdir -p $B
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
A="-gencode=arch=compute_90,code=sm_90"
F="$A -std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -Xptxas --suppress-async-bulk-multicast-advisory-warning"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
BASE=$R/baseline12
RENAME=$(grep -oE '^extern "C" [^(]*\bloomcu_tc_[a-z_0-9]+\(' $BASE/tc_spmm.cu | grep -oE 'loomcu_tc_[a-z_0-9]+' |
         sort -u | sed -E 's/^loomcu_tc_(.*)$/-Dloomcu_tc_\1=tcbase_\1/')
( $NV $F -DLOOMTC_ONLY_F16 -Dloomtc=loomtc_base $RENAME -I$BASE $INC -c $BASE/tc_spmm.cu -o $B/tc_base.o || echo FAIL base ) &
( $NV $F -DLOOMTC_TUNING -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm_t.o || echo FAIL tuning ) &
( $NV $F $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o || echo FAIL tiles ) &
( $NV $F $INC -c backends/cuda/spmm_f32.cu -o $B/spmm_f32.o || echo FAIL f32 ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( $NV $A -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_BASELINE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
wait
$NV $A -o $B/tc_bench_t $B/tc_bench.o $B/tc_spmm_t.o $B/tc_tiles.o $B/tc_base.o $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz
echo "build rc=$? at $(el)s"
for v in "1 32" "0 32" "0 128" "2 128" "2 32"; do
  set -- $v
  [ $(el) -gt 330 ] && break
  LOOMTC_RX_CLUSTER=$1 LOOMTC_RX_BOX=$2 timeout 60 $B/tc_bench_t --dlmc /tmp/dlmc_all --only-tc --n 64,256,512 --reps 10 \
      --budget 50 --csv $O/c$1_box$2.csv > $O/c$1_box$2.txt 2>&1
  echo "cluster $1 box $2 rc=$? at $(el)s"
  sed -n '/^against the baseline/,/^summary/p' $O/c$1_box$2.txt | grep " all " | head -3
done
gzip -f $O/*.csv $O/*.txt 2>/dev/null
gunzip $O/device.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c4.tgz -C /tmp c4
echo "done at $(el)s"
