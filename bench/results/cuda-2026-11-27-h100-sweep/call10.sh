#!/bin/bash
# session 29 call 10: two trial switches on the narrow walk (N <= 4), one
# build, interleaved base, LONGMIN=32, PAIRNA=1, x2:
#   LOOM_CUDA_LONGMIN=32: rows of up to 32 non-zeros swept (and pieces of up
#   to 32 short), not 16 (read at plan time);
#   LOOM_CUDA_PAIRNA=1: the long segments' pairs loaded L1::no_allocate
#   instead of streamed (read at launch).
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda) > $OUT/build.log 2>&1
echo "build rc=$? at $(el)s"
LOOM_CUDA_LONGMIN=32 LOOM_CUDA_PAIRNA=1 LOOM_CUDA_TEST_QUICK=1 timeout 60 ./tests/test_cuda > $OUT/test_cuda_trial.log 2>&1
echo "test_cuda quick (both switches) rc=$? at $(el)s"; tail -n 1 $OUT/test_cuda_trial.log
mkdir -p /tmp/sub && for m in soc-Slashdot0902 mdual luxembourg_osm bcsstk33 citeseer_adj email-Enron; do
  ln -sf $R/benchdata/$m.mtx.gz /tmp/sub/; done
C="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
for run in b1 l1 p1 b2 l2 p2; do
  E=""; case $run in l*) E="LOOM_CUDA_LONGMIN=32";; p*) E="LOOM_CUDA_PAIRNA=1";; esac
  env $E LOOM_BENCH_CONFIGS="$C" timeout 75 ./bench/gpu_bench --data /tmp/sub --rmat 1e6,1e7,1e8 \
    --n 1,2,4 --dtypes f32,f64 --budget-ms 10 --out $OUT/$run > $OUT/${run}_stdout.txt 2>&1
  echo "$run rc=$? at $(el)s"; grep "rmat-1e+0[78] .* N=1 " $OUT/${run}_stdout.txt | cut -c1-100
done
cd $OUT && tar czf call10.tgz b[12]* l[12]* p[12]* *.log device.txt && rm -f b[12]* l[12]* p[12]* *.log device.txt
