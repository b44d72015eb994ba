#!/bin/bash
# session 47 call 4 (H200): every DLMC layer, all methods, timed as a plain
# loop of calls (tc_bench's default) and as CUDA graphs (tc_bench --graph,
# new this session), in one session on one machine: N = 256 both ways,
# then N = 64 and 512 as graphs.  main at f37e4c9 plus --graph.
# Carry: .devrun/dlmc.npz.xz.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c4; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
NV=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc); CB=$(dirname $NV)
export PATH=$CB:$PATH
B=/tmp/b4; mkdir -p $B
A="-gencode=arch=compute_90,code=sm_90"
F="$A -std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
( $NV $F -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o &
  $NV $F $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o &
  $NV $F $INC -c backends/cuda/spmm_f32.cu -o $B/spmm_f32.o &
  gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o &
  $NV $A -std=c++17 -O2 -Xcompiler -ffp-contract=off $INC -c bench/tc_bench.cu -o $B/tc_bench.o &
  wait ) > $O/build.log 2>&1
$NV $A -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/tc_tiles.o $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz >> $O/build.log 2>&1
echo "built at $(el)s: $(ls $B/tc_bench 2>&1)"
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz
python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
run() { # name, args...
  local n=$1; shift
  timeout 150 $B/tc_bench --dlmc /tmp/dlmc_all --reps 10 --budget 120 --csv $O/$n.csv "$@" > $O/$n.txt 2>&1
  echo "$n rc=$? at $(el)s; graph failures: $(grep -c 'graph capture failed' $O/$n.txt)"
  sed -n '/^auto/,$p' $O/$n.txt | head -8
}
run plain256 --n 256
run graph256 --n 256 --graph
run graph64_512 --n 64,512 --graph
grep -m3 'graph capture failed' $O/*.txt
gzip -f $O/*.csv $O/*.txt 2>/dev/null; gunzip $O/device.txt.gz
mkdir -p $OUT && tar czf $OUT/c4.tgz -C /tmp c4
echo "done at $(el)s"
