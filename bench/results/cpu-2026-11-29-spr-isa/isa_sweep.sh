#!/bin/bash
# AVX-512 vs AVX2 kernels of the OpenMP backend at small N (this machine)
cd /work/main
t() { LOOM_OMP_ISA=$1 ./tools/loom spmm /work/shared/data/bench/$2.mtx.gz -n $3 -b openmp -d $4 -t $5 -r 30 2>&1 | grep -i 'time:' | awk '{print $2}'; }
for m in MIT8 bcsstk33 citeseer_allx mbeacxc soc-Slashdot0902 mdual; do
 for dt in f32 f64; do
  for n in 2 3 4 8 16; do
   for d in rb-rm-sr eb-rm-sr:chunk=4096 rb-rm-pr:lanes=4 eb-rm-pr:chunk=4096 rb-cm-sr; do
     a=$(t avx512 $m $n $d $dt); b=$(t avx2 $m $n $d $dt)
     echo "$m $dt $n $d $a $b"
   done
  done
 done
done
