#!/bin/bash
# session 26 call 6 (trial): short rows / segments ordered longest first
# (LOOM_CUDA_SORT_SHORT=1, read at plan time) against storage order, one
# build, processes interleaved OFF ON OFF ON; test_cuda with it on.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda) > $OUT/build.log 2>&1
echo "build rc=$?"
LOOM_CUDA_SORT_SHORT=1 LOOM_CUDA_TEST_QUICK=1 timeout 60 ./tests/test_cuda > $OUT/test_cuda_sorted.log 2>&1
echo "test_cuda (sorted, quick) rc=$?"; tail -n 2 $OUT/test_cuda_sorted.log
mkdir -p /tmp/sub && for m in soc-Slashdot0902 email-Enron wiki-Vote facebook_combined rajat01 memplus pubmed_adj PGPgiantcompo astro-ph bcsstk33 copter2; do
  ln -sf $R/benchdata/$m.mtx.gz /tmp/sub/; done
C="eb-rm-sr:chunk=32,vdl,csc;eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc;rb-rm-sr:vdl,csc"
for run in off1 on1 off2 on2; do
  v=0; case $run in on*) v=1;; esac
  LOOM_CUDA_SORT_SHORT=$v LOOM_BENCH_CONFIGS="$C" timeout 55 ./bench/gpu_bench --data /tmp/sub --rmat 1e6,1e7 \
    --n 1,2,4,8,32,128 --dtypes f32 --budget-ms 10 --out $OUT/$run > $OUT/${run}_stdout.txt 2>&1
  echo "$run rc=$?"
done
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd $OUT && tar czf call6.tgz off* on* test_cuda_sorted.log device.txt build.log && rm -f off* on* test_cuda_sorted.log device.txt build.log
