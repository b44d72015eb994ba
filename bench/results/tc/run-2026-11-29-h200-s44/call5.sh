#!/bin/bash
# session 44 call 5 (H200): why two 512 x 2048 layers of one sparsity
# (0.95, 52428 non-zeros) run 10.3 and 13.3 us in the resident kernel at
# N = 256, when spreading the second's long rows (call 3) did not help:
# Nsight Compute on main (d9ecca7 kernels, -lineinfo), f16 k16, one
# launch after warm-up, on rn50 bottleneck_1_block_group4_2_1 (rows of at
# most 148) and transformer encoder 3's ffn conv2 (rows up to 499), with
# the per-multiprocessor spread of active cycles and the shared-memory
# bank conflicts of the ldmatrix gathers.
# Carry: .devrun/dlmc.npz.xz.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c5; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 bench/dlmc_npz.py unpack /tmp/dlmc.npz /tmp/dlmc_all | tail -1
B=/tmp/tcb; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -lineinfo"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
( $NVCC $ARCH $FLAGS -DLOOMTC_ONLY_F16 $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc_spmm ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o || echo FAIL tiles ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/tc_model.o || echo FAIL model ) &
( $NVCC $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
wait
$NVCC $ARCH -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/tc_tiles.o $B/tc_model.o -lcusparse -lcublas -lz || echo FAIL link
echo "built at $(el)s"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || echo ncu)
M="sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_ldsm.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__cycles_active.max,smsp__cycles_active.avg"
for L in rn50/magnitude_pruning/0.95/bottleneck_1_block_group4_2_1 transformer/magnitude_pruning/0.95/body_encoder_layer_3_ffn_conv2_fully_connected; do
  n=$(basename $L); d=/tmp/one_$n/$(dirname $L); mkdir -p $d; cp /tmp/dlmc_all/$L.smtx $d/
  timeout 60 $B/tc_bench --dlmc /tmp/one_$n --n 256 --only-tc > $O/bench_$n.txt 2>&1
  grep -E "^(rn50|transformer)" $O/bench_$n.txt | head -2
  timeout 150 $NCU --set full --metrics $M -k regex:tc_resident_kernel --launch-skip 2 -c 1 -o $O/ncu_$n \
      $B/tc_bench --dlmc /tmp/one_$n --n 256 --only-tc --reps 2 --batches 1 > $O/ncu_run_$n.txt 2>&1
  echo "ncu $n rc=$? at $(el)s"
  $NCU -i $O/ncu_$n.ncu-rep --page details > $O/details_$n.txt 2>&1
  $NCU -i $O/ncu_$n.ncu-rep --page raw --csv > $O/raw_$n.csv 2>&1
  $NCU -i $O/ncu_$n.ncu-rep --page source --csv --print-source sass > $O/sass_$n.csv 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|L2 Cache Throughput|Executed Ipc A|Issue Slots Busy|No Eligible|Active Warps Per|Bank" $O/details_$n.txt | head -14
  python3 - $O/raw_$n.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]; v = rows[2] if len(rows) > 2 else rows[-1]
for want in ("sm__cycles_active.min", "sm__cycles_active.avg", "sm__cycles_active.max", "smsp__cycles_active.avg", "smsp__cycles_active.max",
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
             "smsp__inst_executed_op_ldsm.sum", "gpu__time_duration.sum"):
    for i, name in enumerate(h):
        if name == want:
            print("   %-58s %s" % (name, v[i]))
PY
  rm -f $O/ncu_$n.ncu-rep
done
gzip -9 $O/*.csv $O/details_*.txt 2>/dev/null
tar czf $OUT/c5.tgz -C /tmp c5
echo "done at $(el)s"
