#!/bin/bash
# session 29 call 8: N = 1 exchange through shared memory (the working
# tree, B) against shuffles (A: the same tree with spmm_eb_segments.cuh of
# the last commit, .devrun/seg_head.cuh), two clean builds, processes
# interleaved A B A B A B, f32 and f64.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
for v in A B; do
  (mkdir -p /tmp/$v && cd /tmp/$v && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 &&
   { [ $v = B ] || cp "$R/seg_head.cuh" backends/cuda/spmm_eb_segments.cuh; } &&
   ./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
   make -j8 lib/libloom.la bench/gpu_bench) > $OUT/build_$v.log 2>&1 &
done
wait
echo "builds at $(el)s"; for v in A B; do ls -la /tmp/$v/loom-0.1.0/bench/gpu_bench | cut -c1-60; grep -c "xpair_room" /tmp/$v/loom-0.1.0/backends/cuda/spmm_eb_segments.cuh; done
mkdir -p /tmp/sub && for m in soc-Slashdot0902 mdual luxembourg_osm bcsstk33 citeseer_adj email-Enron; do
  ln -sf $R/benchdata/$m.mtx.gz /tmp/sub/; done
C="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
for run in A1 B1 A2 B2 A3 B3; do
  v=${run:0:1}
  LOOM_BENCH_CONFIGS="$C" timeout 75 /tmp/$v/loom-0.1.0/bench/gpu_bench --data /tmp/sub --rmat 1e6,1e7,1e8 \
    --n 1 --dtypes f32,f64 --budget-ms 10 --out $OUT/$run > $OUT/${run}_stdout.txt 2>&1
  echo "$run rc=$? at $(el)s"; grep "rmat-1e+0[78] .* N=1 " $OUT/${run}_stdout.txt | cut -c1-110
done
cd $OUT && tar czf call8.tgz A* B* *.log device.txt && rm -f A* B* *.log device.txt
