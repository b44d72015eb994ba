#!/bin/bash
# session 39 call 6 (H200): why call 5's f32 room exchange (B) gains at
# R-MAT 1e7 (1.08x) and loses at 1e8 (0.97x): Nsight Compute (--set full)
# on the narrow walk (EB + SR chunk 1024, N = 1, f32) of A (main) and B,
# R-MAT 1e7 and 1e8, one launch each after warm-up.
# Carry .devrun/loom-0.1.0.tar.gz, .devrun/loom-room2.tar.gz, .devrun/cmocka, .devrun/xdata.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c6; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
build() {
  local d=$1 t=$2; shift 2
  [ -x $d/bench/.libs/gpu_bench ] && return 0
  mkdir -p $d && tar xzf $t -C $d --strip-components=1 && cd $d &&
    ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
    make -j8 "$@"
}
build /tmp/A $R/loom-0.1.0.tar.gz lib/libloom.la bench/gpu_bench > $O/buildA.log 2>&1 &
build /tmp/B $R/loom-room2.tar.gz lib/libloom.la bench/gpu_bench > $O/buildB.log 2>&1 &
wait
echo "built at $(el)s"
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=1024,vdl,csc"
for v in A B; do
  for m in 1e7 1e8; do
    (cd /tmp/$v && ./libtool --mode=execute ncu --clock-control none --kernel-name regex:eb_sr_narrow_segments_kernel \
        --launch-skip 3 --launch-count 1 --set full -o $O/p_${v}_$m ./bench/gpu_bench --data $R/xdata --only NONE \
        --rmat $m --n 1 --dtypes f32 --confirm 0 --budget-ms 2 --out /tmp/g > $O/ncu_${v}_$m.log 2>&1)
    echo "ncu $v $m rc=$? at $(el)s"
    ncu -i $O/p_${v}_$m.ncu-rep --page details > $O/details_${v}_$m.txt 2>&1
    ncu -i $O/p_${v}_$m.ncu-rep --page raw --csv > $O/raw_${v}_$m.csv 2>&1
    grep -E "Duration|Executed Instructions  |L2 Hit Rate|L1/TEX Hit|Achieved Occupancy|Issued Ipc|DRAM Throughput" $O/details_${v}_$m.txt | cut -c1-100
    rm -f $O/p_${v}_$m.ncu-rep
  done
done
gzip -9 $O/*.txt $O/*.csv $O/*.log 2>/dev/null
cd $OUT && tar czf c6.tgz c6 && rm -rf c6
