#!/bin/bash
# device: timing variants of the new tiles kernel (.tc-gpu/var/*.cu) against the old (A), then an
# ncu source page (stall samples per SASS line) of B1 on a 512 x 512 layer and a 64 x 256 layer
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/v3; mkdir -p $B; T0=$(date +%s)
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true -lineinfo"
VARS=${VARS:-"A B1 B2 NOSTEPS NOEPI NOSCAT"}
cp .tc-gpu/old_tiles.cu .tc-gpu/var/A.cu
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc_spmm ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/m.o ) &
for v in $VARS; do ( nvcc $ARCH $FLAGS $INC -c .tc-gpu/var/$v.cu -o $B/t$v.o || echo FAIL $v ) & done
wait
for v in $VARS; do nvcc $ARCH -o $B/b$v $B/tc_bench.o $B/tc_spmm.o $B/t$v.o $B/m.o -lcusparse -lcublas -lz || echo FAIL link $v; done
echo "built at $(( $(date +%s) - T0 ))s"
mkdir -p $B/set && cp -r .tc-gpu/sub/* $B/set/ && cp .tc-gpu/ptiny/rn50/magnitude_pruning/0.9/* $B/set/rn50/magnitude_pruning/0.9/
for r in ${ROUNDS:-1 2}; do for v in $VARS; do $B/b$v --dlmc $B/set --n 256 --reps 30 --only-tc > $OUT/$v$r.txt 2>&1; done; done
echo "timed at $(( $(date +%s) - T0 ))s"
python3 - <<'PY'
import glob,os
out=os.environ.get('OUT','/tmp/out'); vs=os.environ.get('VARS',"A B1 B2 NOSTEPS NOEPI NOSCAT").split()
t={}
for v in vs:
    for f in glob.glob(f"{out}/{v}[0-9].txt"):
        for line in open(f):
            if line.startswith(('rn50','transformer')) and '|' in line:
                a=line.split('|')[0].split(); name=a[0][:44]+' %sx%s'%(a[2],a[3])
                x=float(line.split('|')[1].split()[2]); t.setdefault(name,{}); t[name][v]=min(x,t[name].get(v,1e9))
print('%-56s'%'layer'+''.join('%9s'%v for v in vs))
for k in t: print('%-56s'%k+''.join('%9.2f'%t[k].get(v,0) for v in vs))
import math
for v in vs[1:]: print('geomean %s/%s'%(vs[0],v), round(math.exp(sum(math.log(t[k][vs[0]]/t[k][v]) for k in t)/len(t)),3))
PY
for d in ${NCU_SETS-p512 ptiny}; do
  timeout 120 ncu --cache-control none --clock-control none -k regex:tiles_kernel --launch-skip 3 --launch-count 1 --section SourceCounters --section WarpStateStats -o $B/rep_$d \
      $B/bB1 --dlmc .tc-gpu/$d --n 256 --reps 2 --only-tc > $OUT/ncu_log_$d.txt 2>&1
  ncu --import $B/rep_$d.ncu-rep --page source --print-source sass --csv > $OUT/src_$d.csv 2>&1
  ncu --import $B/rep_$d.ncu-rep --page details > $OUT/details_$d.txt 2>&1
  echo "ncu $d: $(wc -l < $OUT/src_$d.csv) lines at $(( $(date +%s) - T0 ))s"
done
rm -f $OUT/[A-Z]*[0-9].txt
