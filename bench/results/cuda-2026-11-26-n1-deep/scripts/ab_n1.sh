#!/bin/bash
# ab_n1.sh - one device call for the N <= 2 work of issue #4 (branch cuda-n1):
# build A (baseline) and B, test_cuda on B, A/B of gpu_bench (R-MAT in the
# order A B B A, then the real matrices A B), memcheck of B's quick suite,
# then ncu of the EB+SR segments kernel on R-MAT at N = 1 (A and B) while
# time is left.  Everything lands in $OUT/ab.tgz (+ summary on stdout).
#   RMAT (1e6,1e7,1e8), NS (1,2), BUD (5), ONLY (all), LIMIT (575 s)
#   NCU_CFG: the strategy profiled (eb-rm-sr:chunk=1024,vdl,csc)
R=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( ${LIMIT:-575} - $(el) )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory --format=csv; nvcc --version | tail -2; } > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt" | sed -n 2,3p
build() {
    rm -rf "/tmp/$1" && mkdir -p "/tmp/$1" && tar xzf "$R/$1.tar.gz" -C "/tmp/$1" --strip-components=1 &&
        cd "/tmp/$1" &&
        ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" \
            "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
        make -j8 lib/libloom.la bench/gpu_bench tests/test_cuda && { [ "$1" = A ] || make cuda-check-spills; }
}
build A > "$OUT/buildA.log" 2>&1 & build B > "$OUT/buildB.log" 2>&1 & wait
echo "built at $(el)s"; tail -n1 "$OUT/buildA.log"; grep -h "check_spills: backends/cuda/spmm\|error" "$OUT/buildB.log" | head -4
(cd /tmp/B && timeout 150 ./tests/test_cuda > "$OUT/testB.log" 2>&1
 echo "test B rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked|runs" "$OUT/testB.log" | tail -3)
rm_args="--data $R/benchdata --only zzz-none --rmat ${RMAT:-1e6,1e7,1e8} --n ${NS:-1,2} --dtypes f32 --budget-ms ${BUD:-5}"
only="--only ${ONLY:-all}"; [ "${ONLY:-all}" = all ] && only=""
real_args="--data $R/benchdata $only --rmat , --n ${NS:-1,2} --dtypes f32 --budget-ms ${BUD:-5}"
i=0
for v in A B B A; do
    i=$((i + 1))
    (cd "/tmp/$v" && timeout 100 ./bench/gpu_bench $rm_args --out "$OUT/rmat_$v$i" > "$OUT/rmat_$v${i}_stdout.txt" 2>&1)
    echo "rmat $v$i rc=$? at $(el)s"
done
i=0
for v in A B; do
    i=$((i + 1))
    [ "$(left)" -lt 150 ] && break
    (cd "/tmp/$v" && timeout 90 ./bench/gpu_bench $real_args --out "$OUT/real_$v$i" > "$OUT/real_$v${i}_stdout.txt" 2>&1)
    echo "real $v$i rc=$? at $(el)s"
done
if [ "$(left)" -gt 60 ]; then
    (cd /tmp/B && LOOM_CUDA_TEST_QUICK=1 timeout $(( $(left) - 45 )) ./libtool --mode=execute compute-sanitizer \
        --tool memcheck --report-api-errors no --error-exitcode 9 tests/test_cuda > "$OUT/memcheckB.log" 2>&1
     echo "memcheck B rc=$? at $(el)s"; grep -h "ERROR SUMMARY" "$OUT/memcheckB.log")
fi
cfg=${NCU_CFG:-eb-rm-sr:chunk=1024,vdl,csc}
for v in B A; do
    [ "$(left)" -lt 40 ] && break
    # B's bench binary (it knows LOOM_BENCH_CONFIGS) on v's library
    (cd /tmp/B && LOOM_BENCH_CONFIGS="$cfg" LD_LIBRARY_PATH=/tmp/$v/lib/.libs timeout $(( $(left) - 10 )) \
        ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section Occupancy --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis \
        --section InstructionStats -k regex:segments_kernel --launch-skip 3 --launch-count 1 \
        ./bench/gpu_bench --data $R/benchdata --only zzz-none --rmat ${NCU_RMAT:-1e7} --n 1 --dtypes f32 \
        --budget-ms 1 --out /tmp/ncu_$v > "$OUT/ncu_$v.txt" 2>&1
     echo "ncu $v rc=$? at $(el)s")
done
python3 "$R/gpu_bench_ab.py" --a "$OUT"/rmat_A[0-9].csv --b "$OUT"/rmat_B[0-9].csv 2>&1 | grep -v "^ " | head -20
for f in "$OUT"/rmat_A1_summary.csv "$OUT"/rmat_B2_summary.csv; do echo "== $f"; cut -d, -f1,4,5,6,7,9,11 "$f"; done
cd "$OUT" && tar czf ab.tgz --remove-files $(ls | grep -v '^ab.tgz$')
