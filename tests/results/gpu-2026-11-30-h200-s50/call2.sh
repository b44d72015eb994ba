#!/bin/bash
# Session 50, call 2 (H200): call 1 again for what it spoiled.  Call 1 ran
# the full test_cuda_api beside the other tests; its first test fills the
# device's memory on purpose, so test_tc and test_dual_cuda, running then,
# failed to allocate (their logs name cudaErrorMemoryAllocation).  Here
# test_cuda_api runs alone, after the rest.  Also: memcheck on
# test_cuda_api with --report-api-errors no (test_errors asks for more
# memory than exists on purpose; memcheck reported those API errors), and
# test_tc under the sanitizers by cmocka patterns it accepts (call 1's
# "test_[ce]*" matched no test).  Carry: .devrun/M.tar.gz, .devrun/cmocka.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/s50v2; rm -rf $O; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/cm && cp $R/cmocka/* /tmp/cm/ && ln -sf libcmocka.so.0 /tmp/cm/libcmocka.so
if [ -x /tmp/vt/tests/test_dual_cuda ] && cmp -s $R/M.tar.gz /tmp/vt.tar.gz; then cd /tmp/vt; echo "build reused"; else
  cp $R/M.tar.gz /tmp/vt.tar.gz
  cd /tmp && rm -rf vt && mkdir vt && tar xzf $R/M.tar.gz -C vt --strip-components=1 && cd vt || exit 1
  (./configure CMOCKA_CFLAGS=-I/tmp/cm "CMOCKA_LIBS=-L/tmp/cm -lcmocka -Wl,-rpath,/tmp/cm" &&
    make -j16 && make -j16 tests/test_cuda tests/test_cuda_api tests/test_tc tests/test_dual_cuda) > $O/build.log 2>&1
  echo "build rc=$? at $(el)s"
fi
CS=compute-sanitizer; command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer
san() { # TOOL TEST NAME [ENV=VALUE]
    local tool=$1 t=$2 extra="" log=$O/$1_$3.log
    [ $tool = memcheck ] && extra="--leak-check full --report-api-errors no"
    env LOOM_CUDA_TEST_QUICK=1 ${4:-} timeout ${SAN_S:-330} $CS --tool $tool $extra --error-exitcode 9 \
        ./tests/$t > $log 2>&1
    echo "$tool $3 rc=$? at $(el)s: $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|PASSED|FAILED' $log | tr '\n' ' ')"
}
full() { timeout 300 ./tests/$1 > $O/$1.log 2>&1
    echo "$1 rc=$? at $(el)s: $(grep -hE 'PASSED|FAILED|compared|SKIP' $O/$1.log | tr '\n' ' ')"; }
full test_tc & full test_dual_cuda &
san memcheck test_cuda_api test_cuda_api &
san memcheck test_tc test_tc &
san racecheck test_tc test_tc_e "LOOM_TC_TEST_ONLY=test_e*" &
san racecheck test_tc test_tc_c "LOOM_TC_TEST_ONLY=test_c*" &
san racecheck test_tc test_tc_r "LOOM_TC_TEST_ONLY=test_r*" &
wait
full test_cuda_api
gzip -f $O/*.log
mkdir -p $OUT && tar czf $OUT/s50v2.tgz -C /tmp s50v2
echo "done at $(el)s"
