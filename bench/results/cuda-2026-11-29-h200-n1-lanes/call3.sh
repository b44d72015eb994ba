#!/bin/bash
# session 40 call 3 (H200): the N = 1 walk's shape, trial switches
# (trial_shapes.patch on main 333dd69): LOOM_CUDA_N1_LANES = R runs call
# 2's lanes walk in a kernel of its own (the short walks keep their
# occupancy); LOOM_CUDA_N1_SHAPE = GD forces the group walk's lanes G and
# batches D at every size (84: the 8-lane walk, 162: the 16-lane one,
# 164, 321, 322; 1626: 16 x 2 held to 40 registers, six blocks).  Unset =
# main.  test_cuda quick under each; gpu_bench rounds over every variant
# at N = 1 (EB + SR chunks 128, 256, 1024; R-MAT 1e6-1e8 and four graphs
# and meshes; f32, f64).
# Carry .devrun/loom-shapes.tar.gz, .devrun/cmocka, .devrun/mats.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c3; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/L && tar xzf $R/loom-shapes.tar.gz -C /tmp/L --strip-components=1 && cd /tmp/L &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" > $O/build.log 2>&1 &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda >> $O/build.log 2>&1
echo "built rc=$? at $(el)s"
V="S=84 S=162 S=164 S=321 S=322 S=1626 L=8 L=4"
for v in $V; do
  k=${v%%=*}; x=${v#*=}; [ $k = S ] && e=LOOM_CUDA_N1_SHAPE || e=LOOM_CUDA_N1_LANES
  env $e=$x LOOM_CUDA_TEST_QUICK=1 timeout 60 ./tests/test_cuda > $O/test_$k$x.log 2>&1
  echo "test_cuda quick $v rc=$? $(grep -E 'compared' $O/test_$k$x.log)"
done
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
ARGS="--data $R/mats --rmat 1e6,1e7,1e8 --n 1 --dtypes f32,f64 --confirm 2 --budget-ms 15"
for rnd in 1 2 3; do
  for v in base $V; do
    k=${v%%=*}; x=${v#*=}; [ $k = S ] && e=LOOM_CUDA_N1_SHAPE || e=LOOM_CUDA_N1_LANES
    [ $v = base ] && { e=UNUSED_X; x=0; k=B; }
    env $e=$x timeout 100 ./bench/gpu_bench $ARGS --out $O/$k${x}_$rnd > $O/$k${x}_${rnd}.txt 2>&1
    echo "$v round $rnd rc=$? at $(el)s"
  done
  [ $(el) -gt 400 ] && break
done
gzip -9 $O/*.csv $O/*.log 2>/dev/null
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
