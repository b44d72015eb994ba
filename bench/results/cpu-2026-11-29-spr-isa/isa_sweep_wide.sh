#!/bin/bash
# AVX-512 vs AVX2 kernels of the OpenMP backend at N above one 256-bit row (this machine)
cd /work/main
t() { LOOM_OMP_ISA=$1 ./tools/loom spmm /work/shared/data/bench/$2.mtx.gz -n $3 -b openmp -d $4 -t $5 -r 20 2>&1 | grep -i 'time:' | awk '{print $2}'; }
for m in MIT8 bcsstk33 citeseer_allx soc-Slashdot0902; do
 for dt in f32 f64; do
  if [ $dt = f32 ]; then NS="12 16 20 24 32 40 64"; else NS="6 8 10 12 16 20 32"; fi
  for n in $NS; do
   for d in rb-rm-sr eb-rm-sr:chunk=4096; do
     a=$(t avx512 $m $n $d $dt); b=$(t avx2 $m $n $d $dt)
     echo "$m $dt $n $d $a $b"
   done
  done
 done
done
