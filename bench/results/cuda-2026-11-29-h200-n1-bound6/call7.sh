#!/bin/bash
# session 40 call 7 (H200): does __launch_bounds__(256, 6) on the f32
# 16-lane N = 1 walk change the shared-memory carveout the driver picks
# (trial_bound6.patch on main 752cdbe: LOOM_CUDA_N1_BOUND6 set = the same
# kernel body, bounded; unset = main)?  Both compile to 40 registers.
# SASS of the two kernels compared; test_cuda quick under the switch;
# gpu_bench rounds main, bound6 alternating at N = 1 in f32 (EB + SR
# chunks 128, 256, 1024; R-MAT 1e6-1e8 and four graphs and meshes);
# Nsight Compute's launch statistics of both at R-MAT 1e8.
# Carry .devrun/loom-b6.tar.gz, .devrun/cmocka, .devrun/mats.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c7; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/L && tar xzf $R/loom-b6.tar.gz -C /tmp/L --strip-components=1 && cd /tmp/L &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" > $O/build.log 2>&1 &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda >> $O/build.log 2>&1
echo "built rc=$? at $(el)s"
o=$(ls backends/cuda/*spmm_f32*.o | head -1)
cuobjdump -sass $o > /tmp/sass.txt 2>/dev/null
for k in eb_sr_narrow_segments_kernelIfLi1ELi16ELi2 eb_sr_narrow_segments_bound6_kernelIfLi1ELi16ELi2; do
  awk -v k=$k '/Function :/ {p = index($0, k) > 0} p' /tmp/sass.txt | grep -E "^ +/\*[0-9a-f]+\*/" |
    sed 's@/\*[0-9a-f]*\*/@@; s@;.*@@' > $O/sass_$k.txt
done
wc -l $O/sass_*.txt | head -3
cmp -s $O/sass_eb_sr_narrow_segments_kernelIfLi1ELi16ELi2.txt $O/sass_eb_sr_narrow_segments_bound6_kernelIfLi1ELi16ELi2.txt && echo "SASS identical" || echo "SASS differs: $(diff $O/sass_eb_sr_narrow_segments_kernelIfLi1ELi16ELi2.txt $O/sass_eb_sr_narrow_segments_bound6_kernelIfLi1ELi16ELi2.txt | grep -c '^[<>]') lines"
LOOM_CUDA_N1_BOUND6=1 LOOM_CUDA_TEST_QUICK=1 timeout 60 ./tests/test_cuda > $O/test_bound6_quick.log 2>&1
echo "test_cuda quick bound6 rc=$? $(grep compared $O/test_bound6_quick.log)"
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
ARGS="--data $R/mats --rmat 1e6,1e7,1e8 --n 1 --dtypes f32 --confirm 2 --budget-ms 15"
for rnd in 1 2 3; do
  timeout 100 ./bench/gpu_bench $ARGS --out $O/M_$rnd > $O/M_${rnd}.txt 2>&1; echo "main round $rnd rc=$? at $(el)s"
  LOOM_CUDA_N1_BOUND6=1 timeout 100 ./bench/gpu_bench $ARGS --out $O/B_$rnd > $O/B_${rnd}.txt 2>&1; echo "bound6 round $rnd rc=$? at $(el)s"
done
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=1024,vdl,csc"
for v in M B; do
  e=UNUSED_X; [ $v = B ] && e=LOOM_CUDA_N1_BOUND6
  env $e=1 ./libtool --mode=execute ncu --kernel-name regex:eb_sr_narrow_segments --launch-skip 3 --launch-count 1 \
    --section LaunchStats --section Occupancy --section SpeedOfLight --section MemoryWorkloadAnalysis \
    ./bench/gpu_bench --data /nonexistent --only NONE --rmat 1e8 --n 1 --dtypes f32 --confirm 0 --budget-ms 2 --out /tmp/g > $O/ncu_$v.txt 2>&1
  echo "ncu $v rc=$? at $(el)s"
  grep -E "narrow_segments|Shared Memory Configuration Size|Duration|L1/TEX Hit Rate|L2 Hit Rate|Block Limit Shared|Achieved Occupancy" $O/ncu_$v.txt | cut -c1-110
done
for r in 1 2 3; do for v in M B; do grep "rmat-1e+0[78] .*N=1" $O/${v}_$r.txt | cut -c1-120 | sed "s/^/$v$r /"; done; done
gzip -9 $O/*.csv $O/*.log $O/sass_*.txt 2>/dev/null
cd $OUT && tar czf c7.tgz c7 && rm -rf c7
