#!/bin/bash
# session 29 call 1: the narrow EB + SR walk sweeps its short rows (one
# piece of <= 16 non-zeros, or empty) from the row offsets instead of
# listing them.  LOOM_CUDA_SWEEP=0 (a trial switch read at plan time) lists
# them as before.  test_cuda with the sweep, memcheck, then A/B processes
# interleaved OFF ON OFF ON on one build.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda && make cuda-check-spills) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills" $OUT/build.log | head -3
timeout 150 ./tests/test_cuda > $OUT/test_cuda.log 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked" $OUT/test_cuda.log | tail -3
mkdir -p /tmp/sub && for m in soc-Slashdot0902 email-Enron wiki-Vote pubmed_adj mdual luxembourg_osm rajat01 bcsstk33 PGPgiantcompo memplus citeseer_adj graphchallenge_n1024-l1; do
  ln -sf $R/benchdata/$m.mtx.gz /tmp/sub/; done
C="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
for run in off1 on1 off2 on2; do
  v=1; case $run in off*) v=0;; esac
  LOOM_CUDA_SWEEP=$v LOOM_BENCH_CONFIGS="$C" timeout 75 ./bench/gpu_bench --data /tmp/sub --rmat 1e6,1e7,1e8 \
    --n 1,2,4 --dtypes f32 --budget-ms 10 --out $OUT/$run > $OUT/${run}_stdout.txt 2>&1
  echo "$run rc=$? at $(el)s"
done
left=$(( 560 - $(el) ))
if [ "$left" -gt 40 ]; then
  LOOM_CUDA_TEST_QUICK=1 timeout $(( left - 10 )) ./libtool --mode=execute compute-sanitizer \
    --tool memcheck --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/memcheck.log 2>&1
  echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" $OUT/memcheck.log
fi
cd $OUT && tar czf call1.tgz off* on* *.log device.txt && rm -f off* on* *.log device.txt
