#!/bin/bash
# ab2.sh - builds VARIANTS (tarballs .devrun/V.tar.gz), tests the last
# (test_cuda + memcheck quick), R-MAT A/B in the order V.. then reversed,
# optional real matrices (REAL=1), then ncu of NCU_VARIANTS on R-MAT NCU_RMAT.
R=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( ${LIMIT:-575} - $(el) )); }
VARIANTS=${VARIANTS:-A B C}; last=${VARIANTS##* }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory --format=csv; nvcc --version | tail -2; } > "$OUT/device.txt" 2>&1
sed -n 2,3p "$OUT/device.txt"
build() {
    rm -rf "/tmp/$1" && mkdir -p "/tmp/$1" && tar xzf "$R/$1.tar.gz" -C "/tmp/$1" --strip-components=1 &&
        cd "/tmp/$1" &&
        ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" \
            "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
        make -j6 lib/libloom.la bench/gpu_bench tests/test_cuda && make cuda-check-spills
}
for v in $VARIANTS; do build $v > "$OUT/build$v.log" 2>&1 & done; wait
echo "built at $(el)s"; for v in $VARIANTS; do echo "$v: $(grep -h "check_spills: backends/cuda/spmm_f32\|rror" "$OUT/build$v.log" | head -2)"; done
for t in ${TEST_VARIANTS:-$last}; do
(cd /tmp/$t && timeout 150 ./tests/test_cuda > "$OUT/test$t.log" 2>&1
 echo "test $t rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked|runs" "$OUT/test$t.log" | tail -2)
done
if [ -n "${TEST_ENV:-}" ]; then
    (cd /tmp/$last && env $TEST_ENV timeout 150 ./tests/test_cuda > "$OUT/test${last}_env.log" 2>&1
     echo "test $last with $TEST_ENV rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked|runs" "$OUT/test${last}_env.log" | tail -3)
fi
rm_args="--data $R/benchdata --only zzz-none --rmat ${RMAT:-1e6,1e7,1e8} --n ${NS:-1,2} --dtypes f32 --budget-ms ${BUD:-5}"
order="$VARIANTS $(echo $VARIANTS | tr ' ' '\n' | tac | tr '\n' ' ')"
i=0
for v in $order; do
    i=$((i + 1))
    (cd "/tmp/$v" && timeout 100 ./bench/gpu_bench $rm_args --out "$OUT/rmat_$v$i" > "$OUT/rmat_$v${i}_stdout.txt" 2>&1)
    echo "rmat $v$i rc=$? at $(el)s"
done
for x in ${EXTRA_RUNS:-}; do
    v=${x%%:*}; h=${x#*:}
    (cd "/tmp/$v" && LOOM_CUDA_HOT_COLUMNS=$h timeout 100 ./bench/gpu_bench $rm_args --out "$OUT/rmat_${v}h$h" > "$OUT/rmat_${v}h${h}_stdout.txt" 2>&1)
    echo "rmat $v hot=$h rc=$? at $(el)s"
done
if [ -n "${REAL:-}" ]; then
    i=0
    for v in $order; do
        i=$((i + 1)); [ "$(left)" -lt 150 ] && break
        (cd "/tmp/$v" && timeout 90 ./bench/gpu_bench --data $R/benchdata --rmat , --n ${NS:-1,2} --dtypes f32 \
            --budget-ms ${BUD:-5} --out "$OUT/real_$v$i" > "$OUT/real_$v${i}_stdout.txt" 2>&1)
        echo "real $v$i rc=$? at $(el)s"
    done
fi
if [ "$(left)" -gt 60 ]; then
    (cd /tmp/$last && env LOOM_CUDA_TEST_QUICK=1 ${TEST_ENV:-} timeout $(( $(left) - 45 )) ./libtool --mode=execute compute-sanitizer \
        --tool memcheck --report-api-errors no --error-exitcode 9 tests/test_cuda > "$OUT/memcheck$last.log" 2>&1
     echo "memcheck $last rc=$? at $(el)s"; grep -h "ERROR SUMMARY" "$OUT/memcheck$last.log")
fi
cfg=${NCU_CFG:-eb-rm-sr:chunk=1024,vdl,csc}
for v in ${NCU_VARIANTS:-$last}; do
    [ "$(left)" -lt 50 ] && break
    (cd /tmp/$last && LOOM_BENCH_CONFIGS="$cfg" LD_LIBRARY_PATH=/tmp/$v/lib/.libs timeout $(( $(left) - 10 )) \
        ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section MemoryWorkloadAnalysis_Tables --section Occupancy --section LaunchStats --section WarpStateStats \
        --section ComputeWorkloadAnalysis -k regex:${NCU_K:-segments_kernel} --launch-skip 3 --launch-count 1 \
        ./bench/gpu_bench --data $R/benchdata --only zzz-none --rmat ${NCU_RMAT:-1e8} --n 1 --dtypes f32 \
        --budget-ms 1 --out /tmp/ncu_$v > "$OUT/ncu_$v.txt" 2>&1
     echo "ncu $v rc=$? at $(el)s")
done
python3 "$R/gpu_bench_ab.py" --a "$OUT"/rmat_A[0-9].csv --b "$OUT"/rmat_$last[0-9].csv 2>&1 | sed -n '1,8p'
[ -n "${REAL:-}" ] && python3 "$R/gpu_bench_ab.py" --a "$OUT"/real_A[0-9].csv --b "$OUT"/real_$last[0-9].csv 2>&1 | grep -A3 "best design"
python3 "$R/summ.py" "$OUT"/rmat_*_summary.csv
cd "$OUT" && tar czf ab.tgz --remove-files $(ls | grep -v '^ab.tgz$')
