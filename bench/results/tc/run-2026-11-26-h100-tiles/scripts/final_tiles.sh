#!/bin/bash
# device: the record - tc_gpu_run (build, SASS, tests, full DLMC benchmark), then the tiles form under
# compute-sanitizer (memcheck, racecheck, synccheck) on test_tc and tc_bench; everything tarred into $OUT/rec.tgz
set -u
R=/tmp/rec; rm -rf $R; mkdir -p $R
SKIP_PROBE=1 TC_BASELINE=/none OUT=$R BENCH_BUDGET=${BENCH_BUDGET:-300} bash bench/tc_gpu_run.sh > $R/console.txt 2>&1
grep -E "rc=|FAIL|SPILL|compiled" $R/console.txt
OUT=$R bash .tc-gpu/san_tiles.sh > $R/sanitizers.txt 2>&1; cat $R/sanitizers.txt
gzip -9 $R/san_*.log
cd $R && tar czf $OUT/rec.tgz . && ls -la $OUT/rec.tgz
