#!/bin/bash
# device: the record of the final tiles kernel - tc_gpu_run (build, SASS, tests, all DLMC at N = 64..512),
# then compute-sanitizer: memcheck and synccheck on test_tc (tiles), racecheck on tc_bench's tiles layers
set -u
R=/tmp/rec; rm -rf $R; mkdir -p $R; T0=$(date +%s)
SKIP_PROBE=1 TC_BASELINE=/none OUT=$R BENCH_BUDGET=${BB:-250} bash bench/tc_gpu_run.sh > $R/console.txt 2>&1
grep -E "rc=|FAIL|SPILL|compiled|PASSED|agree|cases" $R/console.txt
sed -n '/^summary/,$p' $R/console.txt
echo "tc_gpu_run done at $(( $(date +%s) - T0 ))s"
export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
B=/tmp/loom-tc-build
for tool in memcheck synccheck; do
  LOOM_TC_TEST_FORM=tiles timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/test_tc > $R/san_test_tc_$tool.log 2>&1
  echo "test_tc (tiles) $tool rc=$? at $(( $(date +%s) - T0 ))s: $(grep -h 'ERROR SUMMARY\|PASSED\|FAILED' $R/san_test_tc_$tool.log | tr '\n' ' ')"
done
for n in 256 100; do
  timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $B/tc_bench --dlmc .tc-gpu/san --n $n --reps 1 --only-tc > $R/san_bench_racecheck_$n.log 2>&1
  echo "tc_bench N=$n racecheck rc=$? at $(( $(date +%s) - T0 ))s: $(grep -h 'RACECHECK SUMMARY' $R/san_bench_racecheck_$n.log | tr '\n' ' ')"
done
gzip -9 $R/san_*.log $R/tc_bench.txt 2>/dev/null
cd $R && tar czf $OUT/rec.tgz . && echo "all done at $(( $(date +%s) - T0 ))s"
