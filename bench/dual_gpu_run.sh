#!/bin/bash
# dual_gpu_run.sh - the dual-side sparsity GPU session in one command, on a
# machine with this repository and no build: compile libloom and the two
# test programs and the benchmark straight with gcc and nvcc (no autotools
# needed), check the dual kernels for spills, run tests/test_dual_cuda and
# tests/test_dual (every backend, cuda included, bit for bit), then
# compute-sanitizer memcheck and racecheck on the quick test if time is
# left, then bench/dual_gpu_bench.  At most 8 files go to $OUT; a summary
# table is printed last.  Well inside 8 minutes on an H200.
#
# Run from the repository root:  bash bench/dual_gpu_run.sh
# CMocka: the system's, else .dualgpu/cmocka/{cmocka.h,libcmocka.so.0}
# (or .tc-gpu/cmocka), a copy carried to the machine.
# Environment: OUT (default /tmp/dual-gpu-out), NVCC, ARCH, BENCH_ARGS,
# CMOCKA_DIR (a carried CMocka even where the system has one), LIMIT
# (seconds for the whole run, default 450), BENCH_BUDGET (default 150).
set -u
OUT=${OUT:-/tmp/dual-gpu-out}
mkdir -p "$OUT"
ROOT=$PWD
B=/tmp/loom-dual-build
rm -rf $B && mkdir -p $B/obj
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
LOG=$OUT/build.log
: > $LOG
say() { echo "[$(el)s] $*" | tee -a $LOG; }

NVCC=${NVCC:-nvcc}
command -v $NVCC >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
CUDA_HOME=$(dirname $(dirname $(command -v $NVCC)))
export PATH=$CUDA_HOME/bin:$PATH
CUDA_LIB=$CUDA_HOME/lib64
[ -d $CUDA_HOME/targets/x86_64-linux/lib ] && CUDA_LIB=$CUDA_HOME/targets/x86_64-linux/lib
export LD_LIBRARY_PATH=$B:$CUDA_LIB:${LD_LIBRARY_PATH:-}
ARCH=${ARCH:-"-gencode=arch=compute_90,code=sm_90"}
{ date -u +%Y-%m-%dT%H:%M:%SZ; hostname; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv;
  $NVCC --version | tail -2; gcc --version | head -1; git -C "$ROOT" log --oneline -1 2>/dev/null; } >> $LOG 2>&1
say "device: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"

# ---------------------------------------------------------------- build
CM_I="" CM_L="-lcmocka"
if [ -n "${CMOCKA_DIR:-}" ] || [ ! -f /usr/include/cmocka.h ]; then
    for d in ${CMOCKA_DIR:-} .dualgpu/cmocka .tc-gpu/cmocka; do
        case $d in /*) ;; *) d=$ROOT/$d ;; esac
        if [ -f $d/cmocka.h ]; then
            CM_I="-I$d"
            CM_L="-L$d -l:libcmocka.so.0 -Wl,-rpath,$d"
            break
        fi
    done
fi
{
    echo "#define LOOM_HAVE_CUDA 1"
    echo "#define LOOM_HAVE_OPENMP 1"
    [ -f /usr/include/zlib.h ] && echo "#define LOOM_HAVE_ZLIB 1"
    [ -f /usr/include/hwloc.h ] && echo "#define LOOM_HAVE_HWLOC 1"
    echo '#define PACKAGE_VERSION "0.1.0"'
} > $B/config.h
LIBS_EXTRA=""
grep -q ZLIB $B/config.h && LIBS_EXTRA="$LIBS_EXTRA -lz"
grep -q HWLOC $B/config.h && LIBS_EXTRA="$LIBS_EXTRA -lhwloc"
INC="-I$B -Iinclude -Ilib -Ireference -Ibackends/cuda -Ibackends/openmp -I$CUDA_HOME/include"
CFLAGS="-std=c11 -O2 -fPIC -Wall -Wextra -ffp-contract=off -fno-fast-math -fvisibility=hidden -fopenmp \
 -D_POSIX_C_SOURCE=200809L -DLOOM_DATADIR=\"/nonexistent\" -DLOOM_SRCDIR=\"$ROOT\""
NVFLAGS="$ARCH -std=c++17 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -O3 \
 -Xcompiler -fPIC,-fvisibility=hidden"
say "build: gcc and $NVCC ($ARCH), $(nproc) cores"
pids=""
for f in backends/cuda/*.cu; do
    o=$B/obj/$(basename $f .cu).o
    ( $NVCC $NVFLAGS -Xptxas -v $INC -c $f -o $o > $B/obj/$(basename $f .cu).ptxas.log 2>&1 \
      || echo "FAIL $f" >> $B/fail ) &
    pids="$pids $!"
done
for f in lib/*.c reference/*.c backends/openmp/*.c backends/cuda/*.c; do
    extra=""
    case $f in
    */kernels_avx2.c) extra="-mavx2 -mfma" ;;
    */kernels_avx512.c) extra="-mavx512f -mavx2 -mfma" ;;
    esac
    o=$B/obj/$(echo $f | tr / _ | sed 's/\.c$/.o/')
    ( gcc $CFLAGS $extra $INC -c $f -o $o 2>> $B/cwarn.log || echo "FAIL $f" >> $B/fail ) &
    pids="$pids $!"
done
wait $pids
cat $B/cwarn.log >> $LOG 2>/dev/null
g++ -shared -fopenmp -o $B/libloom.so $B/obj/*.o -L$CUDA_LIB -lcudart_static -ldl -lpthread -lrt \
    $LIBS_EXTRA -lm -lstdc++ >> $LOG 2>&1 || echo "FAIL link libloom" >> $B/fail
TFLAGS="-std=c11 -O2 -Wall -Wextra -ffp-contract=off -D_POSIX_C_SOURCE=200809L -DLOOM_SRCDIR=\"$ROOT\""
for t in test_dual_cuda test_dual; do
    gcc $TFLAGS -Iinclude $CM_I -o $B/$t tests/$t.c tests/dual_util.c -L$B -lloom $CM_L -lm \
        -Wl,-rpath,$B >> $LOG 2>&1 || echo "FAIL $t" >> $B/fail
done
$NVCC $ARCH -std=c++17 -O3 --fmad=false -Xcompiler -Wall,-Wextra -Iinclude -Ibackends/cuda \
    -o $B/dual_gpu_bench bench/dual_gpu_bench.cu $B/obj/dual_device.o $B/obj/dual_gemm.o $B/obj/dual_lines.o \
    $B/obj/dual_csr_build.o $B/obj/dual_bitmap_build.o $B/obj/dual_im2col.o $B/obj/dual_conv.o \
    -L$B -lloom -L$CUDA_LIB -lcublas -lcusparse -Xlinker -rpath -Xlinker $B >> $LOG 2>&1 \
    || echo "FAIL dual_gpu_bench" >> $B/fail
for l in $B/obj/*.ptxas.log; do grep -v "ptxas info\|bytes stack frame\|^$" $l >> $LOG; done
BUILD=ok
[ -f $B/fail ] && { BUILD="FAILED: $(tr '\n' ' ' < $B/fail)"; cat $B/fail >> $LOG; }
SPILLS=$(sh backends/cuda/check_spills.sh $B/obj/dual_*.ptxas.log 2>&1 | tee -a $LOG | grep -c "with a stack frame or spills" )
KERNELS=$(cat $B/obj/dual_*.ptxas.log | grep -c "Compiling entry function")
grep -h -A3 "dual_gemm_kernel" $B/obj/dual_gemm.ptxas.log | grep -o "Used [0-9]* registers.*" | sort | uniq -c >> $LOG
say "build $BUILD; dual kernels compiled: $KERNELS, logs with spills or stack frames: $SPILLS"

# ---------------------------------------------------------------- tests
TESTLOG=$OUT/tests.log
: > $TESTLOG
run_test() { # name timeout env...
    local name=$1 lim=$2; shift 2
    echo "== $name ($*)" >> $TESTLOG
    local s=$(date +%s)
    env "$@" timeout $lim $B/$name >> $TESTLOG 2>&1
    local rc=$?
    say "$name rc=$rc in $(( $(date +%s) - s ))s"
    return $rc
}
run_test test_dual_cuda 150 X=1; RC_DC=$?
run_test test_dual 150 X=1; RC_D=$?
CHECKED=$(grep -o "[0-9]* results compared bit for bit" $TESTLOG | head -1)

SANLOG=$OUT/sanitizer.log
: > $SANLOG
SAN="compute-sanitizer"
command -v $SAN >/dev/null || SAN=$CUDA_HOME/bin/compute-sanitizer
MEM="not run" RACE="not run"
for tool in memcheck racecheck; do
    left=$(( ${LIMIT:-450} - $(el) - ${BENCH_BUDGET:-150} ))
    if [ $left -lt 40 ]; then
        say "$tool skipped: ${left}s left before the benchmark's budget"
        continue
    fi
    s=$(date +%s)
    echo "== $tool, LOOM_CUDA_TEST_QUICK=1 test_dual_cuda" >> $SANLOG
    LOOM_CUDA_TEST_QUICK=1 timeout $left $SAN --tool $tool --error-exitcode 9 $B/test_dual_cuda >> $SANLOG 2>&1
    rc=$?
    sum=$(grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" $SANLOG | tail -1)
    say "$tool rc=$rc in $(( $(date +%s) - s ))s: $sum"
    [ $tool = memcheck ] && MEM="rc=$rc ${sum:-no summary}" || RACE="rc=$rc ${sum:-no summary}"
done

# ------------------------------------------------------------ benchmark
left=$(( ${LIMIT:-450} - $(el) - 10 ))
say "benchmark (${left}s left)"
timeout $left $B/dual_gpu_bench --csv $OUT/spgemm.csv --conv-csv $OUT/table3.csv ${BENCH_ARGS:-} \
    > $OUT/bench.txt 2>&1
RC_B=$?
say "dual_gpu_bench rc=$RC_B"

# -------------------------------------------------------------- summary
{
echo "== summary ($(el)s, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1))"
printf "%-28s %s\n" "build" "$BUILD ($KERNELS dual kernel compilations, $SPILLS spilling logs)"
printf "%-28s %s\n" "test_dual_cuda" "rc=$RC_DC ${CHECKED}"
printf "%-28s %s\n" "test_dual (all backends)" "rc=$RC_D $(grep -o '\[  PASSED  \] [0-9]* test(s)\|\[  FAILED  \] [0-9]* test(s)' $TESTLOG | tail -1)"
printf "%-28s %s\n" "memcheck (quick)" "$MEM"
printf "%-28s %s\n" "racecheck (quick)" "$RACE"
printf "%-28s %s\n" "dual_gpu_bench" "rc=$RC_B"
echo "-- SpGEMM 4096^3 (ms): sparsity | floor | cublas | dual (default) | pipe kernel | cusparse | vs blas | vs cusp"
awk -F, 'NR > 1 { printf "  %6.1f%% | %7.3f | %7.3f | %7.3f | %7.3f | %8s | %6.2fx | %s\n", 100*$2, $5, $7, $8, $16, ($9 < 0 ? "-" : sprintf("%.3f", $9)), $7/$8, ($9 > 0 ? sprintf("%.1fx", $9/$8) : "-") }' $OUT/spgemm.csv 2>/dev/null
echo "-- Table III (im2col us; normalized to dense) and whole conv (ms)"
awk -F, 'NR > 1 { printf "  %6.1f%% | dense %6.2f | csr %7.2f (%5.2fx) | bitmap %6.2f (%5.2fx) | conv %6.3f %6.3f %6.3f | %s\n", 100*$1, $3, $4, $6, $5, $7, $13, $14, $15, $17 }' $OUT/table3.csv 2>/dev/null
grep -h "faster than\|not faster" $OUT/bench.txt 2>/dev/null | sed 's/^/  /'
} | tee $OUT/summary.txt
