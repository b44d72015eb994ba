#!/bin/bash
# session 42 call 6 (H200): the resident strip by bulk copies (the TMA,
# cp.async.bulk onto one shared-memory barrier) instead of 16-byte
# cp.async by every thread, alone (LOOMTC_RX_BULK=1) or multicast over a
# thread-block cluster of 2 or 4 blocks that share the strip
# (LOOMTC_RX_BULK=2, 4: each L2 read lands in every block of the cluster).
# trial_bulk.patch, LOOMTC_TUNING build, the committed tc_spmm.cu as
# tc_bench's baseline (same process, bits compared).  One DLMC layer of
# each (shape, sparsity), N = 256 and 512, tensor-core forms only; the
# variants in turn, then the plain build's own path again.
# Carry: .devrun/dlmc.npz.xz, .devrun/baseline9.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c6; mkdir -p $O
R=$(pwd)/.devrun; D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
B=/tmp/tcb; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
BASE=$R/baseline9
( $NVCC $ARCH $FLAGS -Dloomtc=loomtc_base -Dloomcu_tc_plan_create=tcbase_plan_create \
      -Dloomcu_tc_plan_destroy=tcbase_plan_destroy -Dloomcu_tc_spmm=tcbase_spmm \
      -Dloomcu_tc_supported=tcbase_supported -Dloomcu_tc_spmm_path=tcbase_spmm_path -Dloomcu_tc_device_sms=tcbase_device_sms \
      -Dloomcu_tc_resident_max_k=tcbase_resident_max_k -I$BASE $INC -c $BASE/tc_spmm.cu -o $B/tc_base.o || echo FAIL base ) &
( $NVCC $ARCH $FLAGS -DLOOMTC_TUNING -Xptxas -v $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o > $B/ptxas.log 2>&1 || { echo FAIL tc_spmm; tail $B/ptxas.log; } ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o || echo FAIL tiles ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/spmm_f32.cu -o $B/spmm_f32.o || echo FAIL spmm_f32 ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( $NVCC $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_BASELINE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
( xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz /tmp/dlmc_all ) &
wait
$NVCC $ARCH -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/tc_tiles.o $B/tc_base.o $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz || echo FAIL link
echo "built at $(el)s; spills: $(grep 'spill stores' $B/ptxas.log | grep -vc ' 0 bytes spill stores, 0 bytes spill loads')"
python3 - <<'PY'
import os, shutil
seen = set()
for root, _, files in sorted(os.walk('/tmp/dlmc_all')):
    for f in sorted(files):
        p = os.path.join(root, f)
        m, k, nnz = [int(t) for t in open(p).readline().replace(',', ' ').split()[:3]]
        key = (m, k, root)
        if key in seen:
            continue
        seen.add(key)
        d = root.replace('/tmp/dlmc_all', '/tmp/dlmc_s')
        os.makedirs(d, exist_ok=True); shutil.copy(p, d)
print('layers, one a (shape, sparsity):', len(seen))
PY
run() { # name, then environment assignments
  local name=$1; shift
  env "$@" timeout 45 $B/tc_bench --dlmc /tmp/dlmc_s --n 256,512 --only-tc --csv $O/$name.csv > $O/$name.txt 2>&1
  echo "$name ($*) rc=$? at $(el)s"; grep -E "^baseline:" $O/$name.txt | head -2
  sed -n '/^against the baseline/,/^summary/p' $O/$name.txt | grep -E "all" | head -2
}
run off LOOM_NOTHING=1
run bulk1 LOOMTC_RX_BULK=1
run bulk2 LOOMTC_RX_BULK=2
run bulk4 LOOMTC_RX_BULK=4
[ $(el) -lt 230 ] && run bulk2b LOOMTC_RX_BULK=2
gzip -9 $O/*.csv $O/*.txt 2>/dev/null; gunzip $O/device.txt.gz
cd $OUT && tar czf c6.tgz c6 && rm -rf c6
