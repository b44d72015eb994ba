#!/bin/bash
# device: after the review's mends - test_tc (nvcc build), the tiles A/B against the previous file, test_cuda (autotools)
set -u
R=/tmp/rv; mkdir -p $R
SKIP_PROBE=1 TC_BASELINE=/none OUT=$R BENCH_ARGS="--n 256 --limit 1 --only-tc" BENCH_BUDGET=10 bash bench/tc_gpu_run.sh > $R/console.txt 2>&1
grep -E "rc=|FAIL|SPILL|compiled|paths|exact-inputs|bound" $R/console.txt
OUT=$R bash .tc-gpu/ab_tiles.sh 2>&1 | tail -3
LIMIT=200 BENCH_TIMEOUT=1 TEST_TIMEOUT=150 TESTS="test_cuda" OUT=$R/dr bash bench/device_run.sh 2>&1 | grep -E "test_cuda|PASSED|FAIL|memcheck|ERROR SUMMARY"
tar xzf $R/dr/logs.tgz -C $R/dr; grep -E "tiles form on float|large_narrow|runs compared" $R/dr/test_cuda.log
cd $R && tar czf $OUT/review.tgz console.txt test_tc.txt run.log dr/test_cuda.log dr/memcheck.log A1.txt B1.txt 2>/dev/null; ls -la $OUT
