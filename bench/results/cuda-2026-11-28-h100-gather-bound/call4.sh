#!/bin/bash
# session 33 call 4: gather_bound (this folder) on R-MAT 1e6-1e8, beside
# gpu_bench's loom and cuSPARSE at N = 1 on the same machine.  The library
# is main's release tarball; the harness is built by hand against it.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c4
R=$(pwd)/.devrun; H=$(pwd)/bench/results/cuda-2026-11-28-h100-gather-bound; B=$(pwd)/bench
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c4/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q && make -j16 lib/libloom.la bench/gpu_bench) > $OUT/c4/build.log 2>&1
echo "build rc=$? at $(el)s"
mkdir -p /tmp/gb/bench/results/x && cp $B/gpu_bench.cu $B/gpu_check.h /tmp/gb/bench/ && cp $H/gather_bound.cu /tmp/gb/bench/results/x/
/usr/local/cuda/bin/nvcc -gencode=arch=compute_90,code=sm_90 -std=c++17 -O3 -Iinclude -I/tmp/gb/bench \
  -o /tmp/gather_bound /tmp/gb/bench/results/x/gather_bound.cu lib/.libs/libloom.so \
  -L/usr/local/cuda/lib64 -lcusparse -lcublas -Xlinker -rpath -Xlinker $(pwd)/lib/.libs >> $OUT/c4/build.log 2>&1
echo "harness build rc=$? at $(el)s"
for round in 1 2; do
  timeout 120 /tmp/gather_bound 1e6 > $OUT/c4/gather_1e6_$round.txt 2>&1
  timeout 120 /tmp/gather_bound 1e7 > $OUT/c4/gather_1e7_$round.txt 2>&1
  timeout 200 /tmp/gather_bound 1e8 > $OUT/c4/gather_1e8_$round.txt 2>&1
  echo "gather_bound round $round rc=$? at $(el)s"; tail -q -n1 $OUT/c4/gather_1e*_$round.txt
done
LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=1024,vdl,csc;eb-rm-sr:chunk=4096,vdl,csc" timeout 150 ./bench/gpu_bench \
  --data /nonexistent --rmat 1e6,1e7,1e8 --n 1 --dtypes f32 --budget-ms 10 --out $OUT/c4/gpu_bench > $OUT/c4/gpu_bench_stdout.txt 2>&1
echo "gpu_bench rc=$? at $(el)s"; grep "vs cuSPARSE" $OUT/c4/gpu_bench_stdout.txt
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
