#!/bin/bash
# session 46 call 3 (H200): call 2's kernel ran 0.97-0.99x of main, so
# which part of it costs: three variants of tc_spmm.cu, each against main
# at 7fc7654 (baseline14) in one process, all 452 layers, N = 64, 256,
# 512, tensor cores only:
#   v1: main's feed (records loaded a unit ahead) + rx_single + parts_of
#       without its loop;
#   v2: call 2's kernel (record window, the walk reading its records by
#       shuffles at the top of each unit);
#   v3: v2 with the walk's shuffles issued a unit ahead.
# Builds only what tc_bench needs.  Carry: .devrun/dlmc.npz.xz,
# .devrun/baseline14, .devrun/var_v1, .devrun/var_v2, .devrun/var_v3.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c3; mkdir -p $O
R=$(pwd)/.devrun; B=/tmp/loom-tc-build; mkdir -p $B
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
A="-gencode=arch=compute_90,code=sm_90"
F="$A -std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
BASE=$R/baseline14
RENAME=$(grep -oE '^extern "C" [^(]*\bloomcu_tc_[a-z_0-9]+\(' $BASE/tc_spmm.cu | grep -oE 'loomcu_tc_[a-z_0-9]+' |
         sort -u | sed -E 's/^loomcu_tc_(.*)$/-Dloomcu_tc_\1=tcbase_\1/')
( $NV $F -DLOOMTC_ONLY_F16 -Dloomtc=loomtc_base $RENAME -I$BASE $INC -c $BASE/tc_spmm.cu -o $B/tc_base.o || echo FAIL base ) &
for v in 1 2 3; do
  ( $NV $F -DLOOMTC_ONLY_F16 $INC -c $R/var_v$v/tc_spmm.cu -o $B/tc_v$v.o > $O/ptxas_v$v.log 2>&1 || echo FAIL v$v ) &
done
( $NV $F $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o || echo FAIL tiles ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( $NV $A -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_BASELINE -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
wait
for v in 1 2 3; do
  $NV $A -o $B/tcb_v$v $B/tc_bench.o $B/tc_v$v.o $B/tc_tiles.o $B/tc_base.o $B/tc_model.o -lcusparse -lcublas -lz || echo FAIL link v$v
done
echo "build at $(el)s"
for v in 1 2 3; do
  timeout 70 $B/tcb_v$v --dlmc /tmp/dlmc_all --only-tc --n 64,256,512 --reps 10 --budget 60 --csv $O/v$v.csv > $O/v$v.txt 2>&1
  echo "v$v rc=$? at $(el)s"
  sed -n '/^against the baseline/,/^summary/p' $O/v$v.txt | grep " all " | head -3
  grep -E "33288" $O/v$v.txt | cut -c1-200 | head -6
done
gzip -f $O/*.csv $O/*.txt 2>/dev/null
gunzip $O/device.txt.gz 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c3.tgz -C /tmp c3
echo "done at $(el)s"
