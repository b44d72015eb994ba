#!/bin/bash
# session 36 call 2 (H200): would relabeling A's columns (the OpenMP
# backend's omp_relabel order: hottest columns first, empty ones dropped)
# pay on the GPU at N = 1?  A trial gpu_bench (trial_relabel.patch:
# LOOM_BENCH_RELABEL=BYTES relabels the R-MAT input itself and times the
# gather of x into the new order) runs R-MAT 1e7 and 1e8 at N = 1, f32
# and f64, EB + SR chunks 1024 and 2048 and cuSPARSE, as generated (off),
# empty columns dropped (0), a 64 KB hot group, and every column by degree.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/${C2:-c2}
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/${C2:-c2}/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-trial.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q && make -j16 lib/libloom.la bench/gpu_bench) > $OUT/${C2:-c2}/build.log 2>&1
echo "build rc=$? at $(el)s"
C="eb-rm-sr:chunk=1024,vdl,csc;eb-rm-sr:chunk=2048,vdl,csc"
for v in ${VARIANTS:-off 0 65536 1000000000000}; do
  [ $(el) -gt 480 ] && { echo "$v not run: time"; continue; }
  unset LOOM_BENCH_RELABEL; [ $v != off ] && export LOOM_BENCH_RELABEL=$v
  LOOM_BENCH_CONFIGS="$C" timeout $(( 590 - $(el) )) ./bench/gpu_bench --only none --rmat 1e7,1e8 --n 1 \
    --dtypes f32,f64 --confirm 0 --budget-ms 20 --out $OUT/${C2:-c2}/relabel_$v > $OUT/${C2:-c2}/relabel_${v}_stdout.txt 2>&1
  echo "relabel $v rc=$? at $(el)s"; grep -E "^# trial|^rmat" $OUT/${C2:-c2}/relabel_${v}_stdout.txt | head -12
done
cd $OUT && tar czf ${C2:-c2}.tgz ${C2:-c2} && rm -rf ${C2:-c2}
