#!/bin/bash
# device: timing variants of the tiles kernel (speed knobs and the part size) on the sub set and the 0.95 losers
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/tcv; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
T0=$(date +%s)
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc_spmm ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
VARS=${VARS:-"base: ps32:-DTC_TILE_PART_SLICES=32 st2:-DLOOMTT_XSTAGES=2 mb3e4:-DLOOMTT_MIN_BLOCKS=3@-DLOOMTT_EPL=4 mb2:-DLOOMTT_MIN_BLOCKS=2"}
for v in $VARS; do
  n=${v%%:*}; d=$(echo ${v#*:} | tr '@' ' ')
  ( nvcc $ARCH $FLAGS -Xptxas -v $d $INC -c backends/cuda/tc_tiles.cu -o $B/t_$n.o > $B/t_$n.log 2>&1 || echo FAIL tiles $n;
    gcc -O2 -std=c11 -ffp-contract=off $d -Ireference -c reference/tc_model.c -o $B/m_$n.o || echo FAIL model $n ) &
done
wait
for v in $VARS; do n=${v%%:*}; nvcc $ARCH -o $B/b_$n $B/tc_bench.o $B/tc_spmm.o $B/t_$n.o $B/m_$n.o -lcusparse -lcublas -lz || echo FAIL link $n; grep -E "Used|spill" $B/t_$n.log | head -2 | sed "s/^/$n /"; done
echo "built at $(( $(date +%s) - T0 ))s"
for round in 1 2; do for v in $VARS; do n=${v%%:*}
  $B/b_$n --dlmc ${DL:-.tc-gpu/sub} --n ${NS:-256} --reps 20 --only-tc > $OUT/v_${n}_$round.txt 2>&1
done; done
for v in $VARS; do n=${v%%:*}; echo "== $n"; paste <(awk -F'|' '/^(rn50|transformer)/ {split($1,a," "); split($2,b," "); printf "%-42s %5s %5s %4s tiles %7s\n", substr(a[1],1,42), a[3], a[4], a[6], b[3]}' $OUT/v_${n}_1.txt) <(awk -F'|' '/^(rn50|transformer)/ {split($2,b," "); printf "%7s\n", b[3]}' $OUT/v_${n}_2.txt); done
echo "done at $(( $(date +%s) - T0 ))s"
