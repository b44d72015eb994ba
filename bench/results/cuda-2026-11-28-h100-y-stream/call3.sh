#!/bin/bash
# session 33 call 3: Y stored evict-first (st.global.cs) instead of the
# default (st.global / st.global.cg), so that a Y far past the L2 (R-MAT
# 1e7 at N >= 128: 0.5-2 GB) does not push X's rows out of it.  One build;
# LOOM_CUDA_Y_STREAM=1 (a trial switch read at launch) turns it on.
# test_cuda quick with it on, then off/on/off/on.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c3
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c3/device.txt 2>&1
mkdir -p /tmp/sub && for m in soc-Slashdot0902 email-Enron bcsstk33 dlmc_rn50_mp0.8_final_dense \
  dlmc_rn50_mp0.5_bottleneck_projection_g3 graphchallenge_sparse-images-1024_subset mdual \
  luxembourg_osm pubmed_adj citeseer_allx; do xz -dc $R/benchdata_xz/$m.mtx.xz | gzip -1 > /tmp/sub/$m.mtx.gz; done
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda && make cuda-check-spills) > $OUT/c3/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" $OUT/c3/build.log
LOOM_CUDA_Y_STREAM=1 LOOM_CUDA_TEST_QUICK=1 timeout 60 ./tests/test_cuda > $OUT/c3/test_cuda_quick_on.log 2>&1
echo "test_cuda quick (on) rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared" $OUT/c3/test_cuda_quick_on.log | tail -2
C="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=512,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc;rb-rm-sr:vdl,csc;rb-rm-pr:lanes=32,vdl;eb-rm-pr:chunk=256,lanes=32,vdl"
for round in 1 2; do
  for v in 0 1; do
    LOOM_CUDA_Y_STREAM=$v LOOM_BENCH_CONFIGS="$C" timeout 100 ./bench/gpu_bench --data /tmp/sub --rmat 1e6,1e7 \
      --n 1,8,64,128,256,512 --dtypes f32 --budget-ms 10 --out $OUT/c3/y${v}_$round > $OUT/c3/y${v}_${round}_stdout.txt 2>&1
    echo "y$v round $round rc=$? at $(el)s"
  done
done
for v in 0 1 0 1; do
  LOOM_CUDA_Y_STREAM=$v LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=1024,vdl,csc" timeout 60 ./bench/gpu_bench --data /nonexistent --rmat 1e8 \
    --n 1 --dtypes f32 --budget-ms 10 --out $OUT/c3/big_y${v}_$(el) > /dev/null 2>&1
  echo "1e8 y$v rc=$? at $(el)s"
done
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
