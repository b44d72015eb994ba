#!/bin/bash
# device: A/B of the tiles kernel: .tc-gpu/old_tiles.cu (A) against backends/cuda/tc_tiles.cu (B), alternating
set -u
OUT=${OUT:-/tmp/out}; B=/tmp/tcab; mkdir -p $B
ARCH="-gencode=arch=compute_90,code=sm_90"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_spmm.cu -o $B/tc_spmm.o || echo FAIL tc_spmm ) &
( nvcc $ARCH -std=c++17 -O2 -Xcompiler -ffp-contract=off -DLOOM_TC_BENCH_NO_CUDACORE $INC -c bench/tc_bench.cu -o $B/tc_bench.o || echo FAIL bench ) &
( nvcc $ARCH $FLAGS $INC -c .tc-gpu/old_tiles.cu -o $B/tA.o || echo FAIL A ) &
( nvcc $ARCH $FLAGS $INC -c backends/cuda/tc_tiles.cu -o $B/tB.o || echo FAIL B ) &
( gcc -O2 -std=c11 -ffp-contract=off -Ireference -c reference/tc_model.c -o $B/m.o ) &
wait
for v in A B; do nvcc $ARCH -o $B/b$v $B/tc_bench.o $B/tc_spmm.o $B/t$v.o $B/m.o -lcusparse -lcublas -lz || echo FAIL link $v; done
for r in 1 2 3; do for v in A B; do $B/b$v --dlmc ${DL:-.tc-gpu/sub} --n 256 --reps 20 --only-tc > $OUT/$v$r.txt 2>&1; done; done
python3 - <<'PY'
import re,glob,os,math
out=os.environ.get('OUT','/tmp/out')
def load(v):
    d={}
    for f in sorted(glob.glob(f"{out}/{v}[0-9].txt")):
        for line in open(f):
            if line.startswith(('rn50','transformer')) and '|' in line:
                name=line.split()[0]; t=float(line.split('|')[1].split()[2])
                d.setdefault(name,[]).append(t)
    return {k:min(x) for k,x in d.items()}
a,b=load('A'),load('B'); r=[]
for k in a:
    print(f"{k[:55]:55s} A {a[k]:7.2f} B {b[k]:7.2f} A/B {a[k]/b[k]:.3f}"); r.append(a[k]/b[k])
print('geomean A/B', round(math.exp(sum(map(math.log,r))/len(r)),3))
PY
