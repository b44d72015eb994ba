#!/bin/bash
# Record of the resident-kernel rule: the full tc_gpu_run (tests + every DLMC
# layer against cuSPARSE/cuBLAS), then memcheck/racecheck on test_tc and on
# three layers that now take the resident kernel by the rule (N = 256, 100).
set -u
R=$OUT/rec; mkdir -p $R
SKIP_PROBE=1 TC_BASELINE=/none BENCH_BUDGET=340 OUT=$R bash bench/tc_gpu_run.sh > $R/console.txt 2>&1
echo "tc_gpu_run rc=$?"; grep -E "test_tc rc|cases|tc_bench rc|SPILL|kernels compiled" $R/console.txt
sed -n '/^summary/,$p' $R/tc_bench.txt | head -40
B=/tmp/loom-tc-build; export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
T0=$(date +%s)
for tool in memcheck racecheck; do
  LOOM_TC_MODEL=bench/results/tc/model.txt timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $B/test_tc > $R/san_test_tc_$tool.log 2>&1
  echo "test_tc $tool rc=$? at $(( $(date +%s) - T0 ))s: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY\|PASSED\|FAILED' $R/san_test_tc_$tool.log | tr '\n' ' ')"
  for n in 256 100; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/tc_bench --dlmc .tc-gpu/san --n $n --reps 1 --only-tc > $R/san_bench_${tool}_$n.log 2>&1
    echo "tc_bench N=$n $tool rc=$? at $(( $(date +%s) - T0 ))s: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' $R/san_bench_${tool}_$n.log | tr '\n' ' ')"
  done
done
gzip -f $R/tc_bench.txt $R/san_*.log
tar czf $OUT/rec.tgz -C $OUT rec && rm -rf $R
