#!/bin/bash
# device_run.sh - one call on a lent GPU machine: build the release tarball
# with CUDA, run the bit-exact CUDA test, the GPU benchmark (every loom
# candidate, the rules / auto / tune selectors and cuSPARSE), then
# compute-sanitizer memcheck on the quick test while time is left.
#
#   .devrun/ (ignored; carried with the call) holds loom-0.1.0.tar.gz (make
#   dist of the commit to test), cmocka/{include,lib} and benchdata/ (the
#   .mtx.gz files of ../shared/data/bench).
#   Run as: LIMIT=570 bash bench/device_run.sh [gpu_bench options]
# Writes to $OUT: bench.tgz and logs.tgz (device.txt, build.log, the test
# logs, memcheck.log, racecheck.log); prints a short summary last.
#   TESTS="test_cuda test_tc": the GPU test programs to run (default test_cuda).
#   CPU_SWEEP=1: afterwards, the OpenMP selection sweep on the machine's
#   CPU (loom-sweep --rounds, rules/auto/tune recorded), the matrices split
#   over processes of 2 threads on disjoint core pairs (cpu_sweep.tgz);
#   SWEEP_PAIRS (processes, default 6), SWEEP_BUDGET_MS (60) and
#   SWEEP_MAX_RUNS (40) trade time for quieter medians.
#   PLAN_COST="MIT8 bcsstk33": first, bench/plan_cost on those matrices
#   (plan_cost.txt).
#   RACECHECK=1: after memcheck, compute-sanitizer racecheck on the quick
#   CUDA suite while time is left.
#   EXTRA_N="3,5,6,7,12": after the benchmark, gpu_bench again at these N
#   (real matrices and R-MAT 1e6, 1e7; f32) into bench_extra.tgz, so the
#   record's own geometric means keep the issue's N set.
R=$(cd "$(dirname "$0")/.." && pwd)/.devrun
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi; nvcc --version | tail -2; } > "$OUT/device.txt" 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
    make -j16 lib/libloom.la tools/loom bench/gpu_bench bench/plan_cost bench/loom-sweep &&
    make -j16 $(for t in ${TESTS:-test_cuda}; do echo tests/$t; done) &&
    make cuda-check-spills) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills\|error" "$OUT/build.log" | head -10
./tools/loom info --hardware 2>&1 | grep -i cuda | head -3
for t in ${TESTS:-test_cuda}; do
    timeout "${TEST_TIMEOUT:-150}" ./tests/$t > "$OUT/$t.log" 2>&1
    echo "$t rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked" "$OUT/$t.log" | tail -3
    grep -m5 -i "fail\|differ" "$OUT/$t.log"
done
if [ -n "${PLAN_COST:-}" ]; then
    timeout 120 ./bench/plan_cost $(for m in $PLAN_COST; do echo "$R/benchdata/$m.mtx.gz"; done) \
        > "$OUT/plan_cost.txt" 2>&1
    echo "plan_cost rc=$? at $(el)s"
fi
mkdir -p "$OUT/bench"
timeout "${BENCH_TIMEOUT:-300}" ./bench/run_gpu_bench.sh . "$OUT/bench" --data "$R/benchdata" "$@" \
    > "$OUT/bench_console.txt" 2>&1
echo "bench rc=$? at $(el)s"
tar czf "$OUT/bench.tgz" -C "$OUT" bench bench_console.txt && rm -rf "$OUT/bench"
if [ -n "${EXTRA_N:-}" ]; then
    mkdir -p "$OUT/bench_extra"
    timeout "${EXTRA_TIMEOUT:-120}" ./bench/run_gpu_bench.sh . "$OUT/bench_extra" --data "$R/benchdata" \
        --rmat 1e6,1e7 --n "$EXTRA_N" --dtypes f32 --budget-ms 15 > "$OUT/bench_extra_console.txt" 2>&1
    echo "bench at N = $EXTRA_N rc=$? at $(el)s"
    tar czf "$OUT/bench_extra.tgz" -C "$OUT" bench_extra bench_extra_console.txt &&
        rm -rf "$OUT/bench_extra" "$OUT/bench_extra_console.txt"
fi
if [ -n "${CPU_SWEEP:-}" ]; then
    { lscpu | head -20; } > "$OUT/cpu.txt" 2>&1
    mkdir -p "$OUT/cpu_sweep"
    pairs=$(( $(nproc) / 2 - 2 )); [ "$pairs" -gt 6 ] && pairs=6
    [ -n "${SWEEP_PAIRS:-}" ] && pairs=$SWEEP_PAIRS
    files=$(ls "$R"/benchdata/*.mtx.gz)
    for k in $(seq 0 $((pairs - 1))); do
        list=$(echo "$files" | awk -v k=$k -v p=$pairs 'NR % p == k')
        # loom's own pinning off: taskset gives each process its core pair
        LOOM_OMP_BIND=0 LOOM_TUNE_CACHE=/tmp/tune_$k.txt timeout "${SWEEP_TIMEOUT:-240}" \
            taskset -c $((2 * k + 2)),$((2 * k + 3)) ./bench/loom-sweep --threads 2 --rounds 8 \
            --budget-ms "${SWEEP_BUDGET_MS:-60}" --max-runs "${SWEEP_MAX_RUNS:-40}" \
            --n 1,2,4,8,16,32,64,128,256 \
            --out "$OUT/cpu_sweep/sweep_$k.csv" --select-out "$OUT/cpu_sweep/select_$k.csv" \
            $list 2> "$OUT/cpu_sweep/err_$k.txt" &
    done
    wait
    echo "cpu sweep done at $(el)s: $(cat "$OUT"/cpu_sweep/sweep_*.csv | wc -l) rows"
    tar czf "$OUT/cpu_sweep.tgz" -C "$OUT" cpu_sweep cpu.txt && rm -rf "$OUT/cpu_sweep" "$OUT/cpu.txt"
fi
left=$(( ${LIMIT:-570} - $(el) ))
if [ "$left" -gt 40 ]; then
    LOOM_CUDA_TEST_QUICK=1 timeout $(( left - 15 )) ./libtool --mode=execute compute-sanitizer \
        --tool memcheck --report-api-errors no --error-exitcode 9 tests/test_cuda \
        > "$OUT/memcheck.log" 2>&1
    echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" "$OUT/memcheck.log"
fi
left=$(( ${LIMIT:-570} - $(el) ))
if [ -n "${RACECHECK:-}" ] && [ "$left" -gt 40 ]; then
    LOOM_CUDA_TEST_QUICK=1 timeout $(( left - 15 )) ./libtool --mode=execute compute-sanitizer \
        --tool racecheck --error-exitcode 9 tests/test_cuda > "$OUT/racecheck.log" 2>&1
    echo "racecheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$OUT/racecheck.log"
fi
grep "^#" "$OUT/bench_console.txt" | tail -12
# One archive of the logs: a call brings back at most 8 files.
(cd "$OUT" && tar czf logs.tgz --remove-files device.txt $(ls *.log 2>/dev/null))
