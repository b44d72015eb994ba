#!/bin/bash
# session 38 call 7 (H200): with the faster resident kernel, is rx_try's
# rule still right?  Rows form (k16 and k8), fp16, every DLMC layer with
# K <= 802, N = 128, 256, 512: the gather and the resident kernel forced in
# turn (LOOMTC_TUNING build), two alternating rounds.  Carry .devrun/dlmc.npz.xz.
set -u
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c7; O=$OUT/c7
D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
xz -dc .devrun/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc
# the layers the resident kernel can take (K <= 802 on this device)
(cd .tc-gpu/dlmc && find . -name '*.smtx' | while read f; do
   k=$(head -1 "$f" | tr -d ' ' | cut -d, -f2); [ "$k" -le 802 ] && mkdir -p ../dlmc_k/$(dirname $f) && cp "$f" ../dlmc_k/$f; done)
echo "layers with K <= 802: $(find .tc-gpu/dlmc_k -name '*.smtx' | wc -l) at $(el) s"
B=/tmp/loom-tc-build; mkdir -p $B
NVCC=nvcc; command -v nvcc >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
export PATH=$(dirname $NVCC):$PATH
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
( $NVCC $ARCH $FLAGS -DLOOMTC_TUNING -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tune.o || echo FAIL tune ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o || echo FAIL tiles ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( $NVCC $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
wait
$NVCC $ARCH -o $B/tcb $B/tc_bench.o $B/tune.o $B/tc_tiles.o $B/tc_model.o -lcusparse -lcublas -lz || { echo FAIL link; exit 1; }
echo "build at $(el) s"
run() { # name N env...
  local name=$1 n=$2; shift 2
  [ $(el) -gt 260 ] && { echo "== $name skipped (time)"; return; }
  env "$@" timeout 60 $B/tcb --dlmc .tc-gpu/dlmc_k --reps 10 --only-tc --n $n --csv $O/$name.csv > $O/$name.txt 2>&1
  echo "== $name N=$n rc=$? at $(el) s"
}
for n in 256 512 128; do
  run g${n}_1 $n LOOMTC_PATH=gather
  run r${n}_1 $n LOOMTC_PATH=resident
  run g${n}_2 $n LOOMTC_PATH=gather
  run r${n}_2 $n LOOMTC_PATH=resident
done
gzip -f $O/*.csv $O/*.txt
cd $OUT && tar czf c7.tgz c7 && rm -rf c7
