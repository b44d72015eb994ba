#!/bin/bash
# Session 50 (H200): trials of the N = 1 walk against main, in one call.
# VARIANTS: a list of NAME=TARBALL[:DEFINES], each built from
# .devrun/TARBALL.tar.gz (make dist) with DEFINES (comma list of macro=value,
# passed to nvcc) added to NVCC_ARCH_FLAGS, e.g. "M=M N8=N:LOOMCU_NARROW_D1=8".
# Carry: the tarballs, .devrun/cmocka and the matrices (BD: a folder of
# .mtx.gz, absolute path).
# Settings (environment):
#   TESTS="NAME ..."  test_cuda and test_cuda_api on these builds
#   ONLY        gpu_bench --only list ("all": every matrix of BD)
#   RMAT NS DT  gpu_bench --rmat, --n, --dtypes
#   ROUNDS      rounds of every variant in turn; BUD --budget-ms; GRAPH --graph R
#   TAG         output folder name under $OUT
set -u
export OUT=${OUT:-/tmp/out}; TAG=${TAG:-c}; O=/tmp/$TAG; mkdir -p $O
R=$(pwd)/.devrun; BD=${BD:-$R/bd}
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/cm && cp $R/cmocka/* /tmp/cm/ && ln -sf libcmocka.so.0 /tmp/cm/libcmocka.so
arch="-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90"
build() { # NAME TARBALL DEFINES
    local d=/tmp/v_$1 defs=""
    for m in ${3//,/ }; do defs="$defs -D$m"; done
    rm -rf $d && mkdir -p $d && tar xzf "$R/$2.tar.gz" -C $d --strip-components=1 && cd $d &&
        ./configure -q CMOCKA_CFLAGS=-I/tmp/cm "CMOCKA_LIBS=-L/tmp/cm -lcmocka -Wl,-rpath,/tmp/cm" \
            "NVCC_ARCH_FLAGS=$arch$defs" &&
        make -j6 lib/libloom.la bench/gpu_bench tests/test_cuda tests/test_cuda_api
}
names=""
for spec in $VARIANTS; do
    n=${spec%%=*}; rest=${spec#*=}; tb=${rest%%:*}; defs=""; [ "$rest" != "$tb" ] && defs=${rest#*:}
    names="$names $n"; build $n $tb "$defs" > $O/build_$n.log 2>&1 &
done; wait
echo "built at $(el)s"; for n in $names; do echo "$n: $(tail -n1 $O/build_$n.log)"; done
for n in ${TESTS:-}; do
    (cd /tmp/v_$n && make cuda-check-spills > $O/spills_$n.log 2>&1; echo "$n spills rc=$?"; grep -v "no spills" $O/spills_$n.log | tail -n3)
    for t in test_cuda test_cuda_api; do
        (cd /tmp/v_$n && timeout 200 ./tests/$t > $O/${t}_$n.log 2>&1; echo "$n $t rc=$? at $(el)s")
        grep -E "PASSED|FAILED|compared" $O/${t}_$n.log | tail -3
    done
done
only="--only ${ONLY:-email-Enron}"; [ "${ONLY:-}" = all ] && only=""
args="--data $BD $only --rmat ${RMAT:-1e6} --n ${NS:-1} --dtypes ${DT:-f32} --budget-ms ${BUD:-4} --confirm 1 --graph ${GRAPH:-20}"
for r in $(seq 1 "${ROUNDS:-0}"); do
    for n in $names; do
        (cd /tmp/v_$n && timeout 250 ./bench/gpu_bench $args --out $O/$n$r > $O/$n${r}_stdout.txt 2>&1)
        echo "$n$r rc=$? at $(el)s"; grep "lowest" $O/$n${r}_stdout.txt | head -2
    done
done
gzip -f $O/*.log $O/*.csv 2>/dev/null
mkdir -p $OUT && tar czf $OUT/$TAG.tgz -C /tmp $TAG
echo "done at $(el)s"
