#!/bin/bash
# Tuning variants of tc_spmm.cu (fp16 combos only, LOOMTC_TUNING knobs), each
# timed against the baseline on the DLMC subset; results to $OUT/explore.txt.
set -u
B=/tmp/loom-tc-build
E=$OUT/explore.txt
: > $E
NVCC=nvcc; command -v nvcc >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
ARCH="-gencode=arch=compute_90,code=sm_90"
FLAGS="-std=c++17 -O3 --fmad=false -ftz=false -prec-div=true -prec-sqrt=true"
INC="-Iinclude -Ilib -Ireference -Ibackends/cuda"
t0=$(date +%s)
for rb in 4608 6912 9216 cg; do
  ( R=$rb; X=""; [ $rb = cg ] && R=6912 && X=-DLOOMTC_CP_CG
    $NVCC $ARCH $FLAGS -Xptxas -v -DLOOMTC_TUNING -DLOOMTC_RING_BYTES=$R $X \
      -DLOOMTC_ONLY_F16 \
      $INC -c backends/cuda/tc_spmm.cu -o $B/v$rb.o > $B/v$rb.log 2>&1 || echo "FAIL build v$rb" >> $E
    $NVCC $ARCH -o $B/tcb$rb $B/tc_bench.o $B/v$rb.o $B/tc_base.o $B/spmm_f32.o $B/tc_model.o -lcusparse -lcublas -lz >> $E 2>&1 ) &
done
wait
echo "variants built in $(( $(date +%s) - t0 )) s" >> $E
for rb in 4608 6912 9216 cg; do grep -A3 'Compiling entry' $B/v$rb.log | grep -E 'Used|spill' | paste - - | sed "s/^/v$rb /" >> $E; done
run() { # name, ring, env...
  local name=$1 rb=$2; shift 2
  echo "=== $name (ring $rb, $*)" >> $E
  t1=$(date +%s)
  env "$@" timeout 60 $B/tcb$rb --dlmc .tc-gpu/dlmc_sub --n 64,256,512 --reps 10 --only-tc > $B/out_$name.txt 2>&1
  echo "rc=$? $(( $(date +%s) - t1 )) s" >> $E
  grep -E '^baseline' $B/out_$name.txt >> $E
  sed -n '/^against the baseline/,/^summary/p' $B/out_$name.txt | grep -v '^summary' >> $E
  # per-matrix: name N new base (k-min)
  awk '/^(rn50|transformer)\// {m=$1; n=$6; t16=$8; t8=$9} /base16/ {print "  '$name'", m, n, (t16<t8?t16:t8), $0}' $B/out_$name.txt \
    | awk '{b16=$0; sub(/.*base16 +/,"",b16); split(b16,a," "); b=(a[1]<a[3]?a[1]:a[3]); print $1, $2, $3, $4, b}' >> $E
}
run auto3 6912 X=1
run auto2 4608 X=1
run auto4 9216 X=1
run fill2 6912 LOOMTC_FILL=2
run fill05 6912 LOOMTC_FILL=0.5
run allstrips 6912 LOOMTC_SPLIT=1
run onestrip 6912 LOOMTC_SPLIT=100000 LOOMTC_ROWS=1
run cg3 cg X=1
echo "explore took $(( $(date +%s) - t0 )) s" >> $E
grep -E '^===|^rc=|^baseline|^ *(64|256|512) +all' $E
