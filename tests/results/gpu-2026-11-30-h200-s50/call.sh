#!/bin/bash
# Session 50 (H200): every GPU test and four compute-sanitizer tools on
# main at 46ae2a2, the first tree where every CUDA-core and tensor-core
# kernel is launched by programmatic dependent launch (sessions 48-49).
# The build is `make dist` of that commit, built the Autotools way.
# Carry: .devrun/M.tar.gz (the tarball), .devrun/cmocka.
# The full tests and the sanitizer runs go side by side (one GPU, 16
# cores); each sanitizer runs a test's quick subset (LOOM_CUDA_TEST_QUICK=1;
# test_tc: the tests matching LOOM_TC_TEST_ONLY).
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/s50v; rm -rf $O; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/cm && cp $R/cmocka/* /tmp/cm/ && ln -sf libcmocka.so.0 /tmp/cm/libcmocka.so
cd /tmp && rm -rf vt && mkdir vt && tar xzf $R/M.tar.gz -C vt --strip-components=1 && cd vt || exit 1
(./configure CMOCKA_CFLAGS=-I/tmp/cm "CMOCKA_LIBS=-L/tmp/cm -lcmocka -Wl,-rpath,/tmp/cm" &&
  make -j16 && make -j16 tests/test_cuda tests/test_cuda_api tests/test_tc tests/test_dual_cuda &&
  make cuda-check-spills) > $O/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills\|warning:" $O/build.log | tail -5
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
san() { # TOOL TEST [ENV=VALUE]
    local tool=$1 t=$2 extra="" log=$O/$1_$2.log
    [ $tool = memcheck ] && extra="--leak-check full"
    env LOOM_CUDA_TEST_QUICK=1 ${3:-} timeout ${SAN_S:-330} $CS --tool $tool $extra --error-exitcode 9 \
        ./tests/$t > $log 2>&1
    echo "$tool $t rc=$? at $(el)s: $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|PASSED|FAILED' $log | tr '\n' ' ')"
}
full() { timeout 300 ./tests/$1 > $O/$1.log 2>&1
    echo "$1 rc=$? at $(el)s: $(grep -hE 'PASSED|FAILED|compared|SKIP' $O/$1.log | tr '\n' ' ')"; }
for t in test_cuda test_cuda_api test_tc test_dual_cuda; do full $t & done
for t in test_cuda test_cuda_api test_dual_cuda; do san memcheck $t & san racecheck $t & done
san synccheck test_cuda & san initcheck test_cuda &
san memcheck test_tc "LOOM_TC_TEST_ONLY=test_[ce]*" & san racecheck test_tc "LOOM_TC_TEST_ONLY=test_[ce]*" &
wait
gzip -f $O/*.log
mkdir -p $OUT && tar czf $OUT/s50v.tgz -C /tmp s50v
echo "done at $(el)s"
