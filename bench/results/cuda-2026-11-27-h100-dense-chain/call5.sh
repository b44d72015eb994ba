#!/bin/bash
# session 30 call 5: dense.cu with X staged by cp.async two steps ahead,
# the Inf/NaN test moved to the outputs, vector shared loads; then ncu of
# the first dense shape on final_dense at N = 256.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
cp "$R/dense/spmm_rb_dense.cuh" backends/cuda/
(./configure -q --disable-static "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la) > $OUT/build.log 2>&1 &
nvcc -std=c++17 -arch=sm_90 -O3 --fmad=false -Xptxas -v -I include -I lib -I backends/cuda "$R/dense/dense.cu" -c -o /tmp/dense.o > $OUT/dense_build.log 2>&1
echo "dense compile rc=$? at $(el)s"
wait; echo "lib build at $(el)s"
nvcc -arch=sm_90 /tmp/dense.o -o /tmp/dense -L lib/.libs -lloom -Xlinker -rpath -Xlinker "$PWD/lib/.libs" -lcusparse || exit 1
B=$R/benchdata
timeout 300 /tmp/dense $B/dlmc_rn50_mp0.8_final_dense.mtx.gz $B/dlmc_rn50_mp0.5_bottleneck_projection_g3.mtx.gz \
  $B/dlmc_transformer_mp0.9_dec0_ffn_conv1.mtx.gz $B/dlmc_transformer_mp0.95_enc0_attn_q.mtx.gz \
  $B/dlmc_rn50_mp0.98_bottleneck_projection_g3.mtx.gz > $OUT/dense.txt 2>&1
echo "dense rc=$? at $(el)s"; grep -c "BITS DIFFER" $OUT/dense.txt
DENSE_N=256 timeout 120 ncu --clock-control none -k regex:rb_sr_dense_kernel -c 1 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats \
  --section MemoryWorkloadAnalysis /tmp/dense $B/dlmc_rn50_mp0.8_final_dense.mtx.gz > $OUT/ncu.txt 2>&1
echo "ncu rc=$? at $(el)s"
awk '/mtx.gz:/{m=$1; sub(".*/","",m)} / N = /{n=$3} /loom /{v=$(NF-1); if(!(m SUBSEP n in b) || v<b[m,n]) b[m,n]=v} /ALG3/{a[m,n]=$(NF-1)} /dense/ && !/0.00 us/{v=$(NF-6); if(!(m SUBSEP n in d) || v<d[m,n]) {d[m,n]=v; ds[m,n]=$2" "$3}} END{for(k in b){split(k,p,SUBSEP); print p[1], p[2], "loom", b[k], "alg3", a[k], "dense", d[k], ds[k]}}' $OUT/dense.txt | sort -k1,1 -k2,2n
grep -E "Duration|Issue Slots Busy|Warp Cycles Per Issued|Stall|Achieved Occupancy|Theoretical Occupancy|Registers|Eligible|No Eligible|One or More" $OUT/ncu.txt | head -40
