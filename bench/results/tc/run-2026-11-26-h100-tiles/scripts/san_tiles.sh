#!/bin/bash
# device: test_tc (tiles form only) and tc_bench (only-tc) under compute-sanitizer memcheck, racecheck, synccheck
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/loom-tc-build
export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
T0=$(date +%s)
for tool in memcheck racecheck synccheck; do
  LOOM_TC_TEST_FORM=tiles timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $B/test_tc > $OUT/san_test_tc_$tool.log 2>&1
  echo "test_tc (tiles) $tool rc=$? at $(( $(date +%s) - T0 ))s: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY\|PASSED\|FAILED' $OUT/san_test_tc_$tool.log | tr '\n' ' ')"
  for n in 256 100; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/tc_bench --dlmc .tc-gpu/san --n $n --reps 1 --only-tc > $OUT/san_bench_${tool}_$n.log 2>&1
    echo "tc_bench N=$n $tool rc=$? at $(( $(date +%s) - T0 ))s: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' $OUT/san_bench_${tool}_$n.log | tr '\n' ' ')"
  done
done
