#!/bin/bash
# device: the tiles kernel with fewer instructions a step (fast slab path, specialized MMA step, paired
# stores) against the committed one (.tc-gpu/old_tiles.cu): A/B, tests, DLMC N = 256/512, sanitizers
set -u
OUT=${OUT:-/tmp/out}; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/abset && cp -r .tc-gpu/sub/* /tmp/abset/ && cp .tc-gpu/ptiny/rn50/magnitude_pruning/0.9/* /tmp/abset/rn50/magnitude_pruning/0.9/
DL=/tmp/abset bash .tc-gpu/ab_tiles.sh > $OUT/ab.txt 2>&1
echo "ab done at $(( $(date +%s) - T0 ))s"; grep -E "A/B|FAIL|error" $OUT/ab.txt | tail -30
R=/tmp/r5; rm -rf $R; mkdir -p $R
SKIP_PROBE=1 TC_BASELINE=/none OUT=$R BENCH_ARGS="${BA:---n 256,512}" BENCH_BUDGET=${BB:-150} bash bench/tc_gpu_run.sh > $R/console.txt 2>&1
grep -E "rc=|FAIL|SPILL|compiled|OK|PASSED|agree|cases" $R/console.txt; sed -n '/^summary/,$p' $R/console.txt | grep -E "^ +N|all|auto|best"
echo "tc_gpu_run done at $(( $(date +%s) - T0 ))s"
export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
for tool in ${TOOLS:-memcheck synccheck}; do
  LOOM_TC_TEST_FORM=tiles timeout ${ST:-100} compute-sanitizer --tool $tool --error-exitcode 9 /tmp/loom-tc-build/test_tc > $R/san_test_tc_$tool.log 2>&1
  echo "test_tc (tiles) $tool rc=$? at $(( $(date +%s) - T0 ))s: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY\|PASSED\|FAILED' $R/san_test_tc_$tool.log | tr '\n' ' ')"
done
grep -E "FAIL" $R/test_tc.txt | head -20
cp $OUT/ab.txt $R/; gzip -9 $R/san_*.log $R/tc_bench.txt 2>/dev/null
cd $R && tar czf $OUT/r.tgz . && echo "all done at $(( $(date +%s) - T0 ))s"
