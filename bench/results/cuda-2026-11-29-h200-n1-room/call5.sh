#!/bin/bash
# session 39 call 5 (H200): issue #4's N = 1 walk, after call 4's profile
# (../cuda-2026-11-29-h200-n1-f64-profile/: the L1TEX data pipe at 78-80%,
# half of it the long pieces' pair exchange, shuffles in f32, shared loads
# in f64).  A = main (2d1a944's code, make dist); B = main +
# trial_room2_deep.patch: f32 pairs through the warp's room too, two pairs
# a 16-byte load (a quarter of the shuffles' data-pipe requests), and
# LOOMCU_NARROW_DEEP=1 to force the 8-lane, 4-batch walk (f64 reads a pair
# a load either way; 8-lane groups share each load four ways, not two).
# test_cuda on B (every design against the reference, bit for bit), then
# gpu_bench rounds A, B, B+deep alternating: EB + SR chunks 128, 256, 1024
# at N = 1 against cuSPARSE, R-MAT 1e7 and 1e8, soc-Slashdot, email-Enron,
# f32 and f64.  Carry .devrun/loom-0.1.0.tar.gz, .devrun/loom-room2.tar.gz,
# .devrun/cmocka, .devrun/xdata.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c5; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
build() { # dir tarball targets...
  local d=$1 t=$2; shift 2
  mkdir -p $d && tar xzf $t -C $d --strip-components=1 && cd $d &&
    ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
    make -j8 "$@"
}
build /tmp/A $R/loom-0.1.0.tar.gz lib/libloom.la bench/gpu_bench > $O/buildA.log 2>&1 &
build /tmp/B $R/loom-room2.tar.gz lib/libloom.la bench/gpu_bench tests/test_cuda > $O/buildB.log 2>&1 &
wait
echo "built at $(el)s"; tail -1 $O/buildA.log; tail -1 $O/buildB.log
(cd /tmp/B && timeout 120 ./tests/test_cuda > $O/testB.log 2>&1; echo "test_cuda B rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared" $O/testB.log | tail -3)
(cd /tmp/B && LOOMCU_NARROW_DEEP=1 timeout 120 ./tests/test_cuda > $O/testB_deep.log 2>&1; echo "test_cuda B deep rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared" $O/testB_deep.log | tail -3)
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
ARGS="--data $R/xdata --rmat 1e7,1e8 --n 1 --dtypes f32,f64 --confirm 3 --budget-ms 20"
for r in 1 2 3; do
  for v in A B Bdeep; do
    d=/tmp/${v:0:1}; env=""; [ $v = Bdeep ] && env="LOOMCU_NARROW_DEEP=1"
    (cd $d && env $env timeout 120 ./bench/gpu_bench $ARGS --out $O/${v}_$r > $O/${v}_${r}.txt 2>&1)
    echo "$v round $r rc=$? at $(el)s"
  done
  [ $(el) -gt 480 ] && break
done
for f in $O/A_1.txt $O/B_1.txt $O/Bdeep_1.txt; do echo "== $f"; grep -E "N=1 " $f | cut -c1-150; done
gzip -9 $O/*.csv $O/*.log 2>/dev/null
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
