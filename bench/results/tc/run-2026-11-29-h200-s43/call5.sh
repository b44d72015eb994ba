#!/bin/bash
# session 43 call 5 (H200): the kept tree (segments past 64 groups, their
# own kernel on a forked stream), built by autotools from `make dist`'s
# tarball with CUDA: test_cuda_api (loom plans of the tensor-core
# strategies: the rows form's segment workspace is reserved when a plan is
# made), test_tc; then test_tc's rows-form cases under memcheck (the
# workspace and counters, the fork and join) while time is left.
# Carry: .devrun/loom-0.1.0.tar.gz, .devrun/cmocka.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c5; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
( cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la && make -j16 tests/test_cuda_api tests/test_tc && make cuda-check-spills ) > $O/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "warning:\|error\|check_spills" $O/build.log | head -8
cd /tmp/loom-0.1.0 && {
  timeout 60 ./tests/test_cuda_api > $O/test_cuda_api.log 2>&1; echo "test_cuda_api rc=$? at $(el)s"
  grep -E "PASSED|FAILED" $O/test_cuda_api.log | tail -2
  LOOM_TC_MODEL=$REPO/bench/results/tc/model.txt timeout 60 ./tests/test_tc > $O/test_tc_autotools.log 2>&1
  echo "test_tc (autotools build) rc=$? at $(el)s"; grep -E "PASSED|FAILED|resident strips" $O/test_tc_autotools.log | tail -3
  left=$(( 215 - $(el) ))
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ $left -gt 20 ]; then
    LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$REPO/bench/results/tc/model.txt timeout $left $CS --tool memcheck \
        --leak-check full ./tests/test_tc > $O/memcheck_rows.txt 2>&1
    echo "memcheck rc=$? at $(el)s"; grep -E "ERROR SUMMARY|LEAK SUMMARY|\[ *(OK|FAILED) *\]" $O/memcheck_rows.txt | tail -9
  fi
}
gzip -9 $O/build.log $O/memcheck_rows.txt 2>/dev/null
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
