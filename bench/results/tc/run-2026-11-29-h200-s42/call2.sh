#!/bin/bash
# session 42 call 2 (H200): the working tree with the 32-column strips kept
# (64 or 32 columns, the rule of call 1, the selector's narrow tier).
#  1. the autotools build of `make dist`'s tarball with CUDA: test_cuda_api
#     (not run on a GPU since session 40), test_tc, `loom info --hardware`;
#  2. tc_gpu_run.sh on every DLMC layer at N = 256, main at 6c446a6 as the
#     baseline (same process, bits compared): issue #5's figures;
#  3. memcheck on test_tc's rows-form cases while time is left.
# Carry: .devrun/loom-0.1.0.tar.gz, .devrun/cmocka, .devrun/dlmc.npz.xz, .devrun/baseline8.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c2; mkdir -p $O
R=$(pwd)/.devrun; REPO=$(pwd); D=bench/results/tc/run-2026-11-28-h200-s36
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
( xz -dc $R/dlmc.npz.xz > /tmp/dlmc.npz && python3 $D/dlmc_unpack.py /tmp/dlmc.npz .tc-gpu/dlmc ) &
mkdir -p .tc-gpu/cmocka && cp -a $R/cmocka/include/* $R/cmocka/lib/* .tc-gpu/cmocka/
( cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la tools/loom && make -j16 tests/test_cuda_api tests/test_tc ) > $O/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "warning:\|error" $O/build.log | head -5
wait
cd /tmp/loom-0.1.0 && {
  ./tools/loom info --hardware 2>&1 | grep -i -A1 cuda | head -4
  timeout 120 ./tests/test_cuda_api > $O/test_cuda_api.log 2>&1; echo "test_cuda_api rc=$? at $(el)s"
  grep -E "PASSED|FAILED" $O/test_cuda_api.log | tail -2
  LOOM_TC_MODEL=$REPO/bench/results/tc/model.txt timeout 150 ./tests/test_tc > $O/test_tc_autotools.log 2>&1
  echo "test_tc (autotools build) rc=$? at $(el)s"; grep -E "PASSED|FAILED|resident strips" $O/test_tc_autotools.log | tail -3
}
cd $REPO
SKIP_PROBE=1 TC_BASELINE=$R/baseline8 BENCH_ARGS="--n 256" BENCH_BUDGET=130 OUT=$O/tc bash bench/tc_gpu_run.sh > $O/tc_console.txt 2>&1
echo "tc_gpu_run rc=$? at $(el)s"; grep -E "build took|test_tc rc|cases|SPILL|PASSED|FAILED|kernels compiled" $O/tc_console.txt | head -12
grep -E "resident strips" $O/tc/test_tc.txt $O/tc/tc_bench.txt | head -3
sed -n '/^against the baseline/,/^summary/p' $O/tc/tc_bench.txt | head -8
sed -n '/^auto/,$p' $O/tc/tc_bench.txt | head -12
left=$(( 560 - $(el) ))
if [ $left -gt 40 ]; then
  export LD_LIBRARY_PATH=$PWD/.tc-gpu/cmocka:${LD_LIBRARY_PATH:-}
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  LOOM_TC_TEST_FORM=rows LOOM_TC_MODEL=$O/tc/model.txt timeout $left $CS --tool memcheck --leak-check full \
      /tmp/loom-tc-build/test_tc > $O/memcheck_rows.txt 2>&1
  echo "memcheck rc=$? at $(el)s"; tail -3 $O/memcheck_rows.txt
fi
gzip -9 $O/tc/tc_bench.txt $O/tc/tc_bench.csv $O/memcheck_rows.txt $O/build.log 2>/dev/null
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
