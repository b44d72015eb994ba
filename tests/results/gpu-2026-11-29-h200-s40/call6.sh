#!/bin/bash
# session 40 call 6 (H200): call 5's sanitizer runs on gpu_bench again,
# with the kernel filter in compute-sanitizer's syntax (call 5 gave
# `regex:NAME`, which it refused): memcheck and racecheck on the f64
# N = 1 EB + SR walk (chunks 128 and 1024) on R-MAT 1e6, main at 2837950.
# Carry .devrun/loom-0.1.0.tar.gz, .devrun/cmocka.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c6
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c6/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q && make -j16 lib/libloom.la bench/gpu_bench) > $OUT/c6/build.log 2>&1
echo "build rc=$? at $(el)s"
for tool in memcheck racecheck; do
  for c in 128 1024; do
    LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=$c,vdl,csc" timeout 200 ./libtool --mode=execute compute-sanitizer --tool $tool \
      --kernel-name kns=eb_sr_narrow_segments_kernel --report-api-errors no --error-exitcode 9 \
      ./bench/gpu_bench --only NONE --rmat 1e6 --n 1 --dtypes f64 --confirm 0 --budget-ms 1 --out /tmp/g \
      > $OUT/c6/${tool}_gpu_bench_f64_n1_chunk$c.log 2>&1
    echo "$tool gpu_bench f64 N=1 chunk $c rc=$? at $(el)s"
    grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|group of|rmat-1e\+06 .*N=1" $OUT/c6/${tool}_gpu_bench_f64_n1_chunk$c.log | cut -c1-140 | tail -3
  done
done
cd $OUT && tar czf c6.tgz c6 && rm -rf c6
