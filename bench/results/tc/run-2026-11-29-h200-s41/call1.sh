#!/bin/bash
# session 41 call 1 (H200): the gather kernel's parts a row capped
# (trial_parts_cap.patch, LOOMTC_TUNING build, LOOMTC_PARTS_CAP = 8 (main's
# rule), 4, 2, 1), full tc_bench (cuSPARSE, cuBLAS in the same process) on
# the DLMC layers with K > 802 (the gather kernel's; the resident kernel
# holds K <= 802), N = 128, 256, 512, rounds alternating.
# Carry: .devrun/dlmc.npz.xz.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c1; mkdir -p $O
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
B=/tmp/tcb; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
( $NVCC $ARCH $FLAGS -Xptxas -v -DLOOMTC_TUNING $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o > $B/ptxas.log 2>&1 || echo FAIL tc_spmm ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o > $B/tiles.log 2>&1 || echo FAIL tiles ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/spmm_f32.cu -o $B/spmm_f32.o > $B/f32.log 2>&1 || echo FAIL spmm_f32 ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( $NVCC $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
( xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz /tmp/dlmc_all ) &
wait
$NVCC $ARCH -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/tc_tiles.o $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz || echo FAIL link
echo "built and unpacked at $(el)s; spills: $(grep -c 'bytes spill stores' $B/ptxas.log) lines, nonzero: $(grep 'spill stores' $B/ptxas.log | grep -vc ' 0 bytes spill stores, 0 bytes spill loads')"
# the gather kernel's layers: K > 802
python3 - <<'PY'
import os, shutil
n = 0
for root, _, files in os.walk('/tmp/dlmc_all'):
    for f in files:
        p = os.path.join(root, f)
        m, k, nnz = [int(t) for t in open(p).readline().replace(',', ' ').split()[:3]]
        if k > 802:
            d = root.replace('/tmp/dlmc_all', '/tmp/dlmc_k')
            os.makedirs(d, exist_ok=True); shutil.copy(p, d); n += 1
print('layers with K > 802:', n)
PY
run() { # name, cap
  LOOMTC_PARTS_CAP=$2 timeout 110 $B/tc_bench --dlmc /tmp/dlmc_k --n 128,256,512 --csv $O/$1.csv > $O/$1.txt 2>&1
  echo "$1 (cap $2) rc=$? at $(el)s"
}
run cap8a 8; run cap1a 1; run cap2a 2; run cap4a 4
[ $(el) -lt 420 ] && run cap8b 8
[ $(el) -lt 480 ] && run cap1b 1
cp $B/ptxas.log $O/
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
