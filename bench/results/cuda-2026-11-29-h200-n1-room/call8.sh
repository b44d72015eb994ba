#!/bin/bash
# session 39 call 8 (H200): the candidate (C = main + f32 pairs through the
# room, two a 16-byte load, one batch at a time (2 KB a block), the wide
# walk held to 40 registers) against main (A):
# test_cuda on C; gpu_bench rounds A, C alternating at N = 1 (EB + SR
# chunks 128, 256, 1024 against cuSPARSE; R-MAT 1e6-1e8 and four graphs
# and meshes; f32, f64); Nsight Compute's launch statistics of C's walk
# (the carveout it got).  Carry .devrun/loom-0.1.0.tar.gz,
# .devrun/loom-cand.tar.gz, .devrun/cmocka, .devrun/mats.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c8; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
build() {
  local d=$1 t=$2; shift 2
  mkdir -p $d && tar xzf $t -C $d --strip-components=1 && cd $d &&
    ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
    make -j8 "$@"
}
build /tmp/A $R/loom-0.1.0.tar.gz lib/libloom.la bench/gpu_bench > $O/buildA.log 2>&1 &
build /tmp/C $R/loom-cand.tar.gz lib/libloom.la bench/gpu_bench tests/test_cuda > $O/buildC.log 2>&1 &
wait
echo "built at $(el)s"; tail -1 $O/buildA.log; tail -1 $O/buildC.log
(cd /tmp/C && timeout 120 ./tests/test_cuda > $O/testC.log 2>&1; echo "test_cuda C rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared" $O/testC.log | tail -3)
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
ARGS="--data $R/mats --rmat 1e6,1e7,1e8 --n 1 --dtypes f32,f64 --confirm 3 --budget-ms 20"
for r in 1 2 3; do
  for v in A C; do
    (cd /tmp/$v && timeout 120 ./bench/gpu_bench $ARGS --out $O/${v}_$r > $O/${v}_${r}.txt 2>&1)
    echo "$v round $r rc=$? at $(el)s"
  done
  [ $(el) -gt 400 ] && break
done
unset LOOM_BENCH_CONFIGS
for dt in f32; do
  (cd /tmp/C && LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=1024,vdl,csc" ./libtool --mode=execute ncu --kernel-name regex:eb_sr_narrow_segments_kernel \
      --launch-skip 3 --launch-count 1 --section LaunchStats --section Occupancy ./bench/gpu_bench --data $R/mats --only NONE \
      --rmat 1e7 --n 1 --dtypes $dt --confirm 0 --budget-ms 2 --out /tmp/g > $O/ncu_launch_C_$dt.txt 2>&1)
  grep -E "narrow_segments|Shared Memory Configuration|Block Limit|Achieved Occupancy|Theoretical Occupancy" $O/ncu_launch_C_$dt.txt | cut -c1-110
done
for f in $O/A_1.txt $O/C_1.txt; do echo "== $f"; grep -E "N=1 " $f | cut -c1-150; done
gzip -9 $O/*.csv $O/*.log 2>/dev/null
cd $OUT && tar czf c8.tgz c8 && rm -rf c8
