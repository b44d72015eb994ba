#!/bin/bash
# session 29 call 6: at N = 1 the narrow walk's long-segment groups pass
# their (value, X) pairs through shared memory instead of shuffles
# (LOOM_CUDA_XCHG=1, a trial switch read at launch), f32 and f64,
# interleaved 0 1 0 1 on one build; test_cuda quick under it.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"
LOOM_CUDA_XCHG=1 timeout 120 ./tests/test_cuda > $OUT/test_cuda_xchg.log 2>&1
echo "test_cuda xchg rc=$? at $(el)s"; tail -n 1 $OUT/test_cuda_xchg.log
mkdir -p /tmp/sub && for m in soc-Slashdot0902 mdual luxembourg_osm bcsstk33 citeseer_adj email-Enron; do
  ln -sf $R/benchdata/$m.mtx.gz /tmp/sub/; done
C="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
for run in x0a x1a x0b x1b x0c x1c; do
  d=${run:1:1}
  LOOM_CUDA_XCHG=$d LOOM_BENCH_CONFIGS="$C" timeout 75 ./bench/gpu_bench --data /tmp/sub --rmat 1e6,1e7,1e8 \
    --n 1 --dtypes f32,f64 --budget-ms 10 --out $OUT/$run > $OUT/${run}_stdout.txt 2>&1
  echo "$run rc=$? at $(el)s"; grep "rmat-1e+0[78] .* N=1 " $OUT/${run}_stdout.txt | cut -c1-130
done
cd $OUT && tar czf call6.tgz x* *.log device.txt && rm -f x* *.log device.txt
