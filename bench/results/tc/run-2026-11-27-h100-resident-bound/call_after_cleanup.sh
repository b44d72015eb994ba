#!/bin/bash
# session 25 call 14: test_tc after its cleanup helper (141da98); a two-layer tc_bench only to keep the script's shape
export OUT=${OUT:-/tmp/out}
SKIP_PROBE=1 TC_BASELINE=/none BENCH_BUDGET=30 BENCH_ARGS="--n 256 --limit 2" OUT=$OUT/tc bash bench/tc_gpu_run.sh > $OUT/tc_console.txt 2>&1
echo "tc_gpu_run rc=$?"; grep -h "resident strips hold\|PASSED\|FAILED\|FAIL" $OUT/tc/test_tc.txt | head -5
cd $OUT && tar czf tc.tgz --remove-files $(ls | grep -v '^tc.tgz$')
