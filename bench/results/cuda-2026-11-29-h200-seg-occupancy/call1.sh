#!/bin/bash
# session 41 call 1 (H200): the EB + SR segments walk (eb_sr_segments_kernel)
# at three occupancies, f32, N = 32..512: A = main (4 blocks a
# multiprocessor, 16 registers of x loads ahead), B = 5 blocks, 8 ahead,
# C = 3 blocks, 32 ahead (trial_seg_occupancy.patch makes both macros;
# B and C are A's tarball with the defaults edited).  gpu_bench with the
# EB + SR chunks 256/512/1024 (and cuSPARSE in the same process) on 10 real
# matrices and R-MAT 1e6, 1e7; rounds A B C alternating.
# Carry .devrun/loom-seg.tar.gz, .devrun/cmocka, .devrun/benchxz.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c1; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/benchdata && for b in soc-Slashdot0902 email-Enron MIT8 citeseer_allx wiki-Vote PGPgiantcompo \
    pubmed_adj astro-ph dlmc_rn50_mp0.5_bottleneck_projection_g3 dlmc_rn50_mp0.8_final_dense; do
  xz -dc $R/benchxz/$b.xz | gzip -1 > /tmp/benchdata/$b.mtx.gz & done
build() { # dir minb ahead
  mkdir -p $1 && tar xzf $R/loom-seg.tar.gz -C $1 --strip-components=1 && cd $1 &&
    sed -i "s/#define LOOMCU_SEG_MINB 4 /#define LOOMCU_SEG_MINB $2 /" backends/cuda/spmm_eb_segments.cuh &&
    sed -i "s/#define LOOMCU_SEG_AHEAD 16 /#define LOOMCU_SEG_AHEAD $3 /" backends/cuda/spmm_rb.cuh &&
    grep -h "define LOOMCU_SEG" backends/cuda/spmm_eb_segments.cuh backends/cuda/spmm_rb.cuh &&
    ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
    make -j5 lib/libloom.la bench/gpu_bench
}
build /tmp/A 4 16 > $O/buildA.log 2>&1 &
build /tmp/B 5 8 > $O/buildB.log 2>&1 &
build /tmp/C 3 32 > $O/buildC.log 2>&1 &
wait
echo "built at $(el)s"; for v in A B C; do grep "define LOOMCU_SEG" $O/build$v.log | tr '\n' ' '; tail -1 $O/build$v.log; done
for v in A B C; do grep -A2 "eb_sr_segments_kernelIfLi[48]ELi8E" /tmp/$v/backends/cuda/spmm_f32.ptxas.log | grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill stores" | tr '\n' ' '; echo " ($v)"; done
EB="eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=512,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
ARGS="--data /tmp/benchdata --rmat 1e6,1e7 --n 32,64,128,256,512 --dtypes f32 --confirm 2 --budget-ms 15"
for r in 1 2; do
  for v in A B C; do
    (cd /tmp/$v && LOOM_BENCH_CONFIGS="$EB" timeout 120 ./bench/gpu_bench $ARGS --out $O/${v}_$r > $O/${v}_${r}.txt 2>&1)
    echo "$v round $r rc=$? at $(el)s"
    [ $(el) -gt 480 ] && break 2
  done
done
gzip -9 $O/*.log 2>/dev/null; find $O -name '*.csv' -exec gzip -9 {} \;
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
