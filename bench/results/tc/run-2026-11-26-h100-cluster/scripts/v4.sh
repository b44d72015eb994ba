#!/bin/bash
# device: C (the old kernel with the cluster epilogue, now backends/cuda/tc_tiles.cu) against A (old) and B0
# (whole-part staging + cluster), 3 rounds on sub+tiny at N = 256; then test_tc, sanitizers (tiles)
set -u
OUT=${OUT:-/tmp/out}; T0=$(date +%s)
cp backends/cuda/tc_tiles.cu .tc-gpu/var/C.cu
NCU_SETS="" VARS="A C B0" bash .tc-gpu/var3.sh 2>&1 | grep -v "^ncu"
echo "variants done at $(( $(date +%s) - T0 ))s"
R=/tmp/r4; rm -rf $R; mkdir -p $R
SKIP_PROBE=1 TC_BASELINE=/none OUT=$R BENCH_ARGS="${BA:---n 256,512}" BENCH_BUDGET=${BB:-150} bash bench/tc_gpu_run.sh > $R/console.txt 2>&1
grep -E "rc=|FAIL|SPILL|compiled|OK|PASSED|agree|cases" $R/console.txt; sed -n '/^summary/,$p' $R/console.txt | grep -E "^ +N|all|auto|best"
echo "tc_gpu_run done at $(( $(date +%s) - T0 ))s"
export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
for tool in ${TOOLS:-memcheck racecheck synccheck}; do
  LOOM_TC_TEST_FORM=tiles timeout ${ST:-100} compute-sanitizer --tool $tool --error-exitcode 9 /tmp/loom-tc-build/test_tc > $R/san_test_tc_$tool.log 2>&1
  echo "test_tc (tiles) $tool rc=$? at $(( $(date +%s) - T0 ))s: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY\|PASSED\|FAILED' $R/san_test_tc_$tool.log | tr '\n' ' ')"
done
grep -E "FAIL" $R/test_tc.txt | head -20
gzip -9 $R/san_*.log $R/tc_bench.txt 2>/dev/null
cd $R && tar czf $OUT/r.tgz . && echo "all done at $(( $(date +%s) - T0 ))s"
