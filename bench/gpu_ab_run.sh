#!/bin/bash
# gpu_ab_run.sh - one call on a lent GPU machine: an A/B of two builds.
#
# Builds two release tarballs side by side (.devrun/A.tar.gz and
# .devrun/B.tar.gz, made by `make dist`), runs tests/test_cuda on B, then
# bench/gpu_bench on both in alternating rounds (A B A B ...), and packs
# everything into $OUT/ab.tgz (a call brings back at most 8 files).
# Compare with bench/gpu_bench_ab.py --a A*.csv --b B*.csv.
#
#   .devrun/ also holds cmocka/{include,lib} and benchdata/ (see
#   device_run.sh).  Settings (environment):
#   ONLY     real matrices whose name holds one of these (comma list), or
#            "all" (default: seven small and mid-sized ones)
#   RMAT     R-MAT sizes (default 1e6,1e7; "," for none)
#   NS       N values (default 8,16,32,64,128,256,512)
#   BUD      gpu_bench --budget-ms (default 10)
#   ROUNDS   rounds of A then B (default 2)
#   TEST_TIMEOUT seconds for test_cuda on B (default 100)
#   NCU=1    afterwards, Nsight Compute on one EB+SR segments launch of B
#            (soc-Slashdot, N = 64): details and per-instruction SASS counts
R=$(cd "$(dirname "$0")/.." && pwd)/.devrun
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
build() {
    cmp -s "$R/$1.tar.gz" "/tmp/$1.tar.gz" && [ -x "/tmp/$1/bench/gpu_bench" ] && echo reused && return 0
    cp "$R/$1.tar.gz" "/tmp/$1.tar.gz"
    rm -rf "/tmp/$1" && mkdir -p "/tmp/$1" && tar xzf "$R/$1.tar.gz" -C "/tmp/$1" --strip-components=1 &&
        cd "/tmp/$1" &&
        ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" \
            "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
        make -j8 lib/libloom.la bench/gpu_bench tests/test_cuda
}
build A > "$OUT/buildA.log" 2>&1 & build B > "$OUT/buildB.log" 2>&1 & wait
echo "built at $(el)s"; tail -n1 "$OUT/buildA.log"; tail -n1 "$OUT/buildB.log"
(cd /tmp/B && timeout ${TEST_TIMEOUT:-100} ./tests/test_cuda > "$OUT/testB.log" 2>&1
 echo "test B rc=$? at $(el)s"; tail -n2 "$OUT/testB.log")
only="--only ${ONLY:-soc-Slashdot,email-Enron,MIT8,bcsstk33,projection_g3,rajat01,wiki-Vote}"
[ "${ONLY:-}" = all ] && only=""
args="--data $R/benchdata $only --rmat ${RMAT:-1e6,1e7} --n ${NS:-8,16,32,64,128,256,512}"
args="$args --dtypes f32 --budget-ms ${BUD:-10}"
for r in $(seq 1 "${ROUNDS:-2}"); do
    for v in A B; do
        (cd "/tmp/$v" && timeout 150 ./bench/gpu_bench $args --out "$OUT/$v$r" > "$OUT/$v${r}_stdout.txt" 2>&1)
        echo "$v$r rc=$? at $(el)s"
    done
done
if [ -n "${NCU:-}" ]; then
    (cd /tmp/B && rm -f /tmp/segB.ncu-rep &&
        timeout 120 ncu --clock-control none --set full -k regex:eb_sr_segments_kernel \
            --launch-skip 12 -c 1 -o /tmp/segB ./bench/gpu_bench --data "$R/benchdata" \
            --only soc-Slashdot --rmat , --n 64 --dtypes f32 --budget-ms 1 --out /tmp/g \
            > "$OUT/ncuB.log" 2>&1 &&
        ncu --import /tmp/segB.ncu-rep --page details > "$OUT/segB_details.txt" 2>&1 &&
        ncu --import /tmp/segB.ncu-rep --page source --csv --print-source sass \
            > "$OUT/segB_sass.csv" 2>&1)
    echo "ncu done at $(el)s"
fi
cd "$OUT" && tar czf ab.tgz --remove-files $(ls | grep -v '^ab.tgz$')
