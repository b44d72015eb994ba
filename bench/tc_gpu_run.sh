#!/bin/bash
# tc_gpu_run.sh - the tensor-core SpMM's GPU session in one command: build
# (nvcc, no autotools needed), SASS check, probe, tests, benchmark.  Logs
# and results go to $OUT (default bench/results/tc/run).
#
# Run from the repository root:  bash bench/tc_gpu_run.sh
# Inputs it looks for:
#   DLMC:   $LOOM_DLMC (a folder, or an archive of bench/dlmc_npz.py pack,
#           .npz or .npz.xz, unpacked first), .tc-gpu/dlmc,
#           ../shared/data/dlmc, shared/data/dlmc
#   CMocka: the system's, else $CMOCKA_DIR or .tc-gpu/cmocka, a folder with
#           cmocka.h and libcmocka.so.0
#   Baseline: $TC_BASELINE (default .tc-gpu/baseline), a folder with an
#           earlier tc_spmm.cu (and its tc_spmm.h, tc_mma.cuh); when present,
#           tc_bench times it beside the current kernel and compares the
#           outputs bit for bit (e.g. git show REV:backends/cuda/tc_spmm.cu).
# Knobs: SKIP_PROBE=1 (keep the recorded model), BENCH_ARGS (extra tc_bench
#   arguments, e.g. "--n 256 --limit 5"; "--graph" for the GPU's time alone,
#   without each library's host work per call), REPS, BENCH_BUDGET, TC_FLAGS (extra
#   nvcc flags for tc_spmm.cu, e.g. -DLOOMTC_TUNING for its trial switches;
#   its -D options also reach the reference, reference/tc_model.c),
#   TC_VARIANTS ("NAME=FILE ...": other tc_spmm.cu files, each built beside
#   the current one as $B/tc_bench_NAME with the same baseline, to time
#   several trials in one call; the tests run the current file only).
# Each step has its own time limit; the whole run stays under 8 minutes.
set -u
OUT=${OUT:-bench/results/tc/run}
mkdir -p "$OUT"
B=/tmp/loom-tc-build
mkdir -p $B
LOG=$OUT/run.log
exec 3>&1
log() { echo "$@" | tee -a $LOG >&3; }
: > $LOG
log "== tc_gpu_run $(date -u) on $(hostname)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >> $LOG 2>&1
NVCC=${NVCC:-nvcc}
command -v $NVCC >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
ARCH=${ARCH:-"-gencode=arch=compute_90,code=sm_90"}
CUDA_HOME=$(dirname $(dirname $(command -v $NVCC)))
export PATH=$CUDA_HOME/bin:$PATH
export LD_LIBRARY_PATH=$CUDA_HOME/lib64:$CUDA_HOME/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"

DLMC=${LOOM_DLMC:-}
case $DLMC in # an archive of dlmc_npz.py pack: unpacked first
*.npz | *.npz.xz)
    rm -rf /tmp/loom-tc-dlmc
    if [ "${DLMC%.xz}" != "$DLMC" ]; then xz -dc "$DLMC" > /tmp/loom-tc-dlmc.npz; else cp "$DLMC" /tmp/loom-tc-dlmc.npz; fi &&
        python3 bench/dlmc_npz.py unpack /tmp/loom-tc-dlmc.npz /tmp/loom-tc-dlmc >> $LOG 2>&1 &&
        DLMC=/tmp/loom-tc-dlmc || { log "cannot unpack $LOOM_DLMC (see $LOG)"; DLMC=""; }
    rm -f /tmp/loom-tc-dlmc.npz
    ;;
esac
for d in .tc-gpu/dlmc ../shared/data/dlmc shared/data/dlmc /work/shared/data/dlmc; do
    [ -z "$DLMC" ] && [ -d "$d/rn50" ] && DLMC=$d
done
log "DLMC: ${DLMC:-none}"

CMOCKA_I="" CMOCKA_L="-lcmocka"
CM=${CMOCKA_DIR:-.tc-gpu/cmocka}
CM=$(cd "$CM" 2>/dev/null && pwd)
[ -n "${CMOCKA_DIR:-}" ] && [ ! -f "$CM/cmocka.h" ] && log "CMOCKA_DIR=$CMOCKA_DIR holds no cmocka.h: the system's CMocka is tried"
if [ ! -f /usr/include/cmocka.h ] && [ -n "$CM" ] && [ -f "$CM/cmocka.h" ]; then
    CMOCKA_I="-I$CM"
    CMOCKA_L="-L$CM -l:libcmocka.so.0"
    export LD_LIBRARY_PATH=$CM:$LD_LIBRARY_PATH
fi

BASE=${TC_BASELINE:-.tc-gpu/baseline}
BASE_D=""
log "== build ($NVCC $ARCH)"
t0=$(date +%s)
if [ -f "$BASE/tc_spmm.cu" ]; then
    # the baseline's names moved aside so both link into one tc_bench: every
    # loomcu_tc_X its tc_spmm.cu defines becomes tcbase_X (the tiles form's,
    # defined in tc_tiles.cu, stay: it calls the current one)
    BASE_D="-DLOOM_TC_BENCH_BASELINE"
    RENAME=$(grep -oE '^extern "C" [^(]*\bloomcu_tc_[a-z_0-9]+\(' $BASE/tc_spmm.cu | grep -oE 'loomcu_tc_[a-z_0-9]+' |
             sort -u | sed -E 's/^loomcu_tc_(.*)$/-Dloomcu_tc_\1=tcbase_\1/')
    ( $NVCC $ARCH $FLAGS -Dloomtc=loomtc_base $RENAME -I$BASE $INC -c $BASE/tc_spmm.cu -o $B/tc_base.o \
          > $B/tc_base.log 2>&1 || echo FAIL baseline tc_spmm.cu ) &
fi
( $NVCC $ARCH $FLAGS ${TC_FLAGS:-} -Xptxas -v $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o > $B/tc_spmm.ptxas.log 2>&1 || echo FAIL tc_spmm.cu ) &
for v in ${TC_VARIANTS:-}; do
    ( $NVCC $ARCH $FLAGS ${TC_FLAGS:-} -Xptxas -v $INC -c ${v#*=} -o $B/tc_spmm_${v%%=*}.o > $B/tc_spmm_${v%%=*}.ptxas.log 2>&1 ||
          echo FAIL variant ${v%%=*} ) &
done
( $NVCC $ARCH $FLAGS -Xptxas -v $INC -c backends/cuda/tc_tiles.cu -o $B/tc_tiles.o > $B/tc_tiles.ptxas.log 2>&1 || echo FAIL tc_tiles.cu ) &
( $NVCC $ARCH $FLAGS $INC -c backends/cuda/spmm_f32.cu -o $B/spmm_f32.o > $B/spmm_f32.log 2>&1 || echo FAIL spmm_f32.cu ) &
# TC_FLAGS' -D options reach the reference too: an order constant tried
# there (e.g. -DTC_SEGMENT_GROUPS=16) must be the kernels' and the reference's
REF_D=$(for f in ${TC_FLAGS:-}; do case $f in -D*) printf '%s ' "$f";; esac; done)
( gcc -O2 -std=c11 -ffp-contract=off $REF_D -Ireference -c reference/tc_model.c -o $B/tc_model.o 2>&1 || echo FAIL tc_model.c ) &
( $NVCC $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off $BASE_D $INC -c bench/tc_bench.cu -o $B/tc_bench.o 2>&1 || echo FAIL tc_bench.cu ) &
( $NVCC $ARCH $FLAGS $INC -c bench/tc_probe.cu -o $B/tc_probe.o 2>&1 || echo FAIL tc_probe.cu ) &
( gcc -O2 -std=c11 -ffp-contract=off -D_POSIX_C_SOURCE=200809L -DLOOM_SRCDIR="\"$PWD\"" $INC $CMOCKA_I -I$CUDA_HOME/include \
      -c tests/test_tc.c -o $B/test_tc.o 2>&1 || echo FAIL test_tc.c ) &
wait
cat $B/tc_spmm.ptxas.log $B/tc_tiles.ptxas.log | grep -v 'ptxas info\|bytes stack frame' >> $LOG
$NVCC $ARCH -o $B/tc_probe $B/tc_probe.o $B/tc_model.o >> $LOG 2>&1 || log "FAIL link tc_probe"
$NVCC $ARCH -o $B/test_tc $B/test_tc.o $B/tc_spmm.o $B/tc_tiles.o $B/tc_model.o $CMOCKA_L -lm >> $LOG 2>&1 || log "FAIL link test_tc"
BASE_O=""
[ -n "$BASE_D" ] && BASE_O=$B/tc_base.o && log "baseline: $BASE/tc_spmm.cu"
if [ -s $B/spmm_f32.o ]; then
    $NVCC $ARCH -o $B/tc_bench $B/tc_bench.o $B/tc_spmm.o $B/tc_tiles.o $BASE_O $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz >> $LOG 2>&1 || log "FAIL link tc_bench"
else
    log "spmm_f32.cu did not build: tc_bench without the CUDA-core comparison"
    $NVCC $ARCH -std=c++17 -O2 -DLOOM_TC_BENCH_NO_CUDACORE $BASE_D $INC -o $B/tc_bench bench/tc_bench.cu $B/tc_spmm.o $B/tc_tiles.o $BASE_O $B/tc_model.o -lcusparse -lcublas -lz >> $LOG 2>&1 || log "FAIL link tc_bench"
fi
for v in ${TC_VARIANTS:-}; do
    V=${v%%=*}
    $NVCC $ARCH -o $B/tc_bench_$V $B/tc_bench.o $B/tc_spmm_$V.o $B/tc_tiles.o $BASE_O $B/spmm_f32.o $B/tc_model.o \
        -lcusparse -lcublas -lz >> $LOG 2>&1 && log "variant $V: $B/tc_bench_$V (${v#*=})" || log "FAIL link tc_bench_$V"
done
log "build took $(( $(date +%s) - t0 )) s"
VLOGS=$(for v in ${TC_VARIANTS:-}; do echo $B/tc_spmm_${v%%=*}.ptxas.log; done)
awk '/Compiling entry function/ {fn=FILENAME ": " $0} /spill stores/ && ($1 != 0 || $5 != 0 || $9 != 0) {print "SPILL: " fn; print "    " $0}' \
    $B/tc_spmm.ptxas.log $B/tc_tiles.ptxas.log $VLOGS >> $LOG
log "kernels compiled: $(cat $B/tc_spmm.ptxas.log $B/tc_tiles.ptxas.log | grep -c 'Compiling entry function'); with spills/stack: $(grep -c '^SPILL' $LOG)"

log "== SASS: tensor-core instructions in tc_spmm.o"
cuobjdump -sass $B/tc_spmm.o 2>/dev/null | grep -oE 'HMMA\.[0-9A-Z.]+' | sort | uniq -c | tee -a $LOG >&3
log "LDSM (ldmatrix) count: $(cuobjdump -sass $B/tc_spmm.o 2>/dev/null | grep -c LDSM); LDGSTS (cp.async) count: $(cuobjdump -sass $B/tc_spmm.o 2>/dev/null | grep -c LDGSTS)"

if [ "${SKIP_PROBE:-0}" = 1 ]; then
    if cp bench/results/tc/model.txt $OUT/model.txt 2>/dev/null; then
        log "== probe skipped (SKIP_PROBE=1): the tests use bench/results/tc/model.txt"
    else
        log "== probe skipped (SKIP_PROBE=1), no bench/results/tc/model.txt: the tests check random inputs against the error bound"
    fi
else
    log "== probe"
    timeout 60 $B/tc_probe $OUT/model.txt 3000 > $OUT/probe.txt 2>&1
    log "probe rc=$?"; cat $OUT/probe.txt >&3; cat $OUT/model.txt >&3
    cp $OUT/model.txt bench/results/tc/model.txt 2>/dev/null
fi

log "== tests ($(date -u +%T))"
EXTRA=""
if [ -n "$DLMC" ]; then
    for f in rn50/magnitude_pruning/0.9/bottleneck_1_block_group3_1_1 rn50/magnitude_pruning/0.98/bottleneck_3_block_group4_1_1 \
             transformer/magnitude_pruning/0.95/body_decoder_layer_0_self_attention_multihead_attention_q_fully_connected; do
        if [ -f "$DLMC/$f.smtx.gz" ]; then zcat "$DLMC/$f.smtx.gz" > $B/$(basename $f).smtx && EXTRA="$EXTRA:$B/$(basename $f).smtx"
        elif [ -f "$DLMC/$f.smtx" ]; then EXTRA="$EXTRA:$DLMC/$f.smtx"; fi
    done
fi
LOOM_TC_MODEL=$OUT/model.txt LOOM_TC_DLMC="${EXTRA#:}" timeout 120 $B/test_tc > $OUT/test_tc.txt 2>&1
rc=$?
log "test_tc rc=$rc (0 pass, 77 skip)"
grep -E 'device|FAIL|PASSED|FAILED|\[ *(OK|FAILED) *\]' $OUT/test_tc.txt | head -40 >&3
grep -c '\[bit-exact' $OUT/test_tc.txt | xargs -I{} echo "cases checked bit-exact against a calibrated model: {}" | tee -a $LOG >&3
grep -c '\[bound' $OUT/test_tc.txt | xargs -I{} echo "cases checked against the error bound: {}" | tee -a $LOG >&3
grep -c '\[exact-inputs' $OUT/test_tc.txt | xargs -I{} echo "cases with exact inputs (bit for bit under any order): {}" | tee -a $LOG >&3
grep -c ', 2 paths agree' $OUT/test_tc.txt | xargs -I{} echo "cases where both kernels of a form (rows: gather, resident; tiles: plain, pipelined) gave the same bits: {}" | tee -a $LOG >&3

log "== benchmark ($(date -u +%T))"
if [ -n "$DLMC" ]; then
    timeout $(( ${BENCH_BUDGET:-180} + 40 )) $B/tc_bench --dlmc "$DLMC" --reps ${REPS:-10} --budget ${BENCH_BUDGET:-180} \
        --csv $OUT/tc_bench.csv ${BENCH_ARGS:-} > $OUT/tc_bench.txt 2>&1
    log "tc_bench rc=$?"
    grep -E '^baseline|not run|WARNING|within 1%' $OUT/tc_bench.txt >&3
    sed -n '/^against the baseline/,/^summary/p' $OUT/tc_bench.txt | grep -v '^summary' >&3
    sed -n '/^summary/,$p' $OUT/tc_bench.txt >&3
else
    log "no DLMC data: benchmark skipped"
fi
log "== done $(date -u)"
