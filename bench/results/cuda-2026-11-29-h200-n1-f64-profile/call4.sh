#!/bin/bash
# session 39 call 4 (H200): why loom's N = 1 walk loses more in f64 than
# in f32 on R-MAT (issue #4; 1e8: 0.90 of cuSPARSE in f32, 0.81 in f64;
# loom's f64 costs 225 us over its f32 there, cuSPARSE's 27 us).  Nsight
# Compute (--set full) on R-MAT 1e7 at N = 1, f32 and f64: loom's narrow
# EB + SR walk (chunk 1024, the record's pick) and cuSPARSE's csrmv kernel,
# one launch each after warm-up.  main = 82495df as make dist packs it.
# Carry .devrun/loom-0.1.0.tar.gz, .devrun/cmocka, .devrun/xdata.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c4; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/m && tar xzf $R/loom-0.1.0.tar.gz -C /tmp/m --strip-components=1 && cd /tmp/m &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" > $O/build.log 2>&1 &&
  make -j16 lib/libloom.la bench/gpu_bench >> $O/build.log 2>&1
echo "build rc=$? at $(el)s"
cd /tmp/m
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=1024,vdl,csc"
ARGS="--data $R/xdata --only NONE --rmat 1e7 --n 1 --confirm 0 --budget-ms 2"
for dt in f32 f64; do
  for k in loom cusparse; do
    if [ $k = loom ]; then K=eb_sr_narrow_segments_kernel; S=4; else K=csrmv; S=2; fi
    ./libtool --mode=execute ncu --clock-control none --kernel-name regex:$K --launch-skip $S --launch-count 1 \
        --set full -o $O/p_${k}_$dt ./bench/gpu_bench $ARGS --dtypes $dt --out /tmp/g_$dt > $O/ncu_${k}_$dt.log 2>&1
    echo "ncu $k $dt rc=$? at $(el)s"
    ncu -i $O/p_${k}_$dt.ncu-rep --page details > $O/details_${k}_$dt.txt 2>&1
    ncu -i $O/p_${k}_$dt.ncu-rep --page raw --csv > $O/raw_${k}_$dt.csv 2>&1
    grep -E "^  [a-z_].*\(|Duration|Executed Instructions  |DRAM Throughput|L2 Hit Rate|L1/TEX Hit|Achieved Occupancy|Issued Ipc|Registers Per" \
        $O/details_${k}_$dt.txt | cut -c1-140
    rm -f $O/p_${k}_$dt.ncu-rep
  done
done
gzip -9 $O/*.txt $O/*.csv $O/*.log 2>/dev/null
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
