#!/bin/bash
# Session 49 (H200): the CUDA-core kernels by programmatic dependent launch.
# A = make dist of 86350ad (gpu_bench --graph, kernels launched the plain
# way), B = make dist of 4e7d0a4 (every CUDA-core kernel launched by PDL).
# C (call 6) = B plus trial_early_trigger.patch: every kernel lets the next
# one be placed as soon as all its blocks have started.
# Carry: .devrun/{A,B,C}.tar.gz (those VARIANTS names), .devrun/cmocka and
# the matrices (BD: a folder of .mtx.gz, default .devrun/benchdata).
# Settings (environment):
#   VARIANTS    the builds to run (default "A B"); T: the one tested (B)
#   TESTS=1|quick test_cuda (test_chained among them), test_cuda_api and
#               cuda-check-spills on T; memcheck on T's quick test_cuda
#   ONLY        gpu_bench --only list ("all": every matrix of benchdata)
#   RMAT NS DT  gpu_bench --rmat, --n, --dtypes
#   ROUNDS      rounds of A then B; BUD --budget-ms; GRAPH --graph R
#   TAG         output folder name under $OUT
set -u
export OUT=${OUT:-/tmp/out}; TAG=${TAG:-c}; O=/tmp/$TAG; mkdir -p $O
R=$(pwd)/.devrun; BD=${BD:-$R/benchdata}
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/cm && cp $R/cmocka/* /tmp/cm/ && ln -sf libcmocka.so.0 /tmp/cm/libcmocka.so
build() {
    cmp -s "$R/$1.tar.gz" "/tmp/$1.tar.gz" && [ -x "/tmp/$1/bench/gpu_bench" ] && echo reused && return 0
    cp "$R/$1.tar.gz" "/tmp/$1.tar.gz"
    rm -rf "/tmp/$1" && mkdir -p "/tmp/$1" && tar xzf "$R/$1.tar.gz" -C "/tmp/$1" --strip-components=1 &&
        cd "/tmp/$1" &&
        ./configure -q CMOCKA_CFLAGS=-I/tmp/cm "CMOCKA_LIBS=-L/tmp/cm -lcmocka -Wl,-rpath,/tmp/cm" &&
        make -j8 lib/libloom.la bench/gpu_bench tests/test_cuda tests/test_cuda_api
}
VARIANTS=${VARIANTS:-A B}; T=${T:-B}
for v in $VARIANTS; do build $v > $O/build$v.log 2>&1 & done; wait
echo "built at $(el)s"; for v in $VARIANTS; do tail -n1 $O/build$v.log; done
if [ -n "${TESTS:-}" ]; then
    (cd /tmp/$T && make cuda-check-spills > $O/spills$T.log 2>&1; echo "spills rc=$?"; tail -n3 $O/spills$T.log)
    for t in test_cuda test_cuda_api; do
        (cd /tmp/$T && timeout 200 ./tests/$t > $O/${t}$T.log 2>&1; echo "$t rc=$? at $(el)s")
        grep -E "PASSED|FAILED|compared|chain" $O/${t}$T.log | tail -4
    done
    [ "${TESTS}" = quick ] ||
    (cd /tmp/$T && LOOM_CUDA_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --leak-check full \
        ./tests/test_cuda > $O/memcheck$T.log 2>&1; echo "memcheck rc=$? at $(el)s"; tail -n3 $O/memcheck$T.log)
fi
only="--only ${ONLY:-soc-Slashdot,email-Enron,MIT8,bcsstk33,projection_g3,rajat01,wiki-Vote,cora_adj}"
[ "${ONLY:-}" = all ] && only=""
args="--data $BD $only --rmat ${RMAT:-1e6} --n ${NS:-1,2,4,8,16,32,64,128,256,512}"
args="$args --dtypes ${DT:-f32} --budget-ms ${BUD:-4} --confirm 1 --graph ${GRAPH:-20}"
for r in $(seq 1 "${ROUNDS:-0}"); do
    for v in $VARIANTS; do
        (cd /tmp/$v && timeout 200 ./bench/gpu_bench $args --out $O/$v$r > $O/$v${r}_stdout.txt 2>&1)
        echo "$v$r rc=$? at $(el)s"; tail -n 6 $O/$v${r}_stdout.txt | head -4
    done
done
# CHUNKS: T's EB + SR at N = 1 on email-Enron with these chunks (comma
# list), as chains (call 8)
if [ -n "${CHUNKS:-}" ]; then
    cfg=""; for c in ${CHUNKS//,/ }; do cfg="$cfg${cfg:+;}eb-rm-sr:chunk=$c,vdl,csc"; done
    (cd /tmp/$T && LOOM_BENCH_CONFIGS="$cfg" timeout 100 ./bench/gpu_bench --data $BD --only email-Enron \
        --rmat , --n 1 --dtypes f32 --budget-ms 4 --confirm 0 --graph ${GRAPH:-20} --out $O/chunks \
        > $O/chunks_stdout.txt 2>&1; echo "chunks rc=$?")
    cut -d, -f1,5-9 $O/chunks.csv
fi
gzip -f $O/*.log $O/*.csv 2>/dev/null
mkdir -p $OUT && tar czf $OUT/$TAG.tgz -C /tmp $TAG
echo "done at $(el)s"
