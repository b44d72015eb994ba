#!/bin/bash
# session 38 call 6 (H200): memcheck on test_cuda_api's quick subset (call 5
# ran the whole suite under memcheck, which is not a valid run: its first
# test fills the device memory for plain runs only; see
# ../gpu-2026-11-28-h200-s34/).  Rebuilds from the tarball when the machine
# is a fresh one.  Carry: .devrun/loom-0.1.0.tar.gz, .devrun/cmocka.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c6
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
if [ ! -x /tmp/loom-0.1.0/tests/test_cuda_api ]; then
  cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
  (./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
    make -j16 && make -j16 tests/test_cuda_api) > $OUT/c6/build.log 2>&1
  echo "rebuilt rc=$? at $(el)s"
fi
cd /tmp/loom-0.1.0 || exit 1
for tool in memcheck racecheck; do
  LC=""; [ $tool = memcheck ] && LC="--leak-check full"
  LOOM_CUDA_TEST_QUICK=1 timeout 150 ./libtool --mode=execute compute-sanitizer --tool $tool $LC \
    --report-api-errors no --error-exitcode 9 tests/test_cuda_api > $OUT/c6/${tool}_test_cuda_api_quick.log 2>&1
  echo "$tool test_cuda_api (quick) rc=$? at $(el)s"
  grep -hE "ERROR SUMMARY|LEAK SUMMARY|HAZARD|PASSED|FAILED|SKIP" $OUT/c6/${tool}_test_cuda_api_quick.log | tail -4
done
cd $OUT && tar czf c6.tgz c6 && rm -rf c6
