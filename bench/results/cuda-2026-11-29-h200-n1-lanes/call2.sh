#!/bin/bash
# session 40 call 2 (H200): the lanes walk at N = 1 (trial_lanes.patch on
# main 333dd69: LOOM_CUDA_N1_LANES = R walks each long segment a lane, R
# pairs a round, loads coalesced over 32 / R segments, pairs through the
# warp's room).  One build; unset = main's walk.  test_cuda under R = 4
# (full) and R = 2, 8 (quick); gpu_bench rounds base, 2, 4, 8 alternating
# at N = 1 (EB + SR chunks 128, 256, 1024 against cuSPARSE; R-MAT 1e6-1e8
# and four graphs and meshes; f32, f64).
# Carry .devrun/loom-lanes.tar.gz, .devrun/cmocka, .devrun/mats.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c2; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/L && tar xzf $R/loom-lanes.tar.gz -C /tmp/L --strip-components=1 && cd /tmp/L &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" > $O/build.log 2>&1 &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda >> $O/build.log 2>&1
echo "built rc=$? at $(el)s"
grep -A2 "Function properties for.*narrow_segments_kernelI[fd]Li1ELi1E" backends/cuda/spmm_f*.ptxas.log | grep -E "Used|spill" | cut -c1-120
LOOM_CUDA_N1_LANES=4 timeout 100 ./tests/test_cuda > $O/test_lanes4.log 2>&1
echo "test_cuda R=4 rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ" $O/test_lanes4.log | tail -4
for r in 2 8; do
  LOOM_CUDA_N1_LANES=$r LOOM_CUDA_TEST_QUICK=1 timeout 60 ./tests/test_cuda > $O/test_lanes${r}_quick.log 2>&1
  echo "test_cuda quick R=$r rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ" $O/test_lanes${r}_quick.log | tail -4
done
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
ARGS="--data $R/mats --rmat 1e6,1e7,1e8 --n 1 --dtypes f32,f64 --confirm 2 --budget-ms 15"
for rnd in 1 2; do
  for v in 0 2 4 8; do
    LOOM_CUDA_N1_LANES=$v timeout 100 ./bench/gpu_bench $ARGS --out $O/L${v}_$rnd > $O/L${v}_${rnd}.txt 2>&1
    echo "lanes=$v round $rnd rc=$? at $(el)s"
  done
  [ $(el) -gt 330 ] && break
done
gzip -9 $O/*.csv $O/*.log 2>/dev/null
cd $OUT && tar czf c2.tgz c2 && rm -rf c2
