#!/bin/bash
# session 40 call 4 (H200): f64 at N = 1 walks every long piece with the
# 16-lane, 2-batch group (C: main 333dd69 + wide_f64.patch), where main
# (A: the same tree, the patch reversed) used it from 4e6 non-zeros only.
# test_cuda on C; gpu_bench rounds A, C alternating at N = 1 in f64: the
# EB + SR chunks alone, then every design and the selectors, on the 43
# real matrices and R-MAT 1e6 (inputs of 4e6+ non-zeros do not change).
# Carry .devrun/loom-cand.tar.gz, .devrun/wide_f64.patch, .devrun/cmocka,
# .devrun/benchxz.
set -u
export OUT=${OUT:-/tmp/out}; O=$OUT/c4; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/benchdata && for f in $R/benchxz/*.xz; do
  b=$(basename $f .xz); xz -dc $f | gzip -1 > /tmp/benchdata/$b.mtx.gz & done
build() {
  local d=$1; shift
  mkdir -p $d && tar xzf $R/loom-cand.tar.gz -C $d --strip-components=1 && cd $d &&
    { [ $d != /tmp/A ] || patch -s -R -p1 < $R/wide_f64.patch; } &&
    ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
    make -j8 "$@"
}
build /tmp/A lib/libloom.la bench/gpu_bench > $O/buildA.log 2>&1 &
build /tmp/C lib/libloom.la bench/gpu_bench tests/test_cuda > $O/buildC.log 2>&1 &
wait
echo "built at $(el)s"; tail -1 $O/buildA.log; tail -1 $O/buildC.log; ls /tmp/benchdata | wc -l
grep -c "elem == 8" /tmp/A/backends/cuda/cuda_kernels.h /tmp/C/backends/cuda/cuda_kernels.h
(cd /tmp/C && timeout 100 ./tests/test_cuda > $O/testC.log 2>&1; echo "test_cuda C rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared" $O/testC.log | tail -3)
EB="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=1024,vdl,csc"
ARGS="--data /tmp/benchdata --rmat 1e6 --n 1 --dtypes f64 --confirm 2 --budget-ms 15"
for r in 1 2 3; do
  for v in A C; do
    (cd /tmp/$v && LOOM_BENCH_CONFIGS="$EB" timeout 100 ./bench/gpu_bench $ARGS --out $O/eb_${v}_$r > $O/eb_${v}_${r}.txt 2>&1)
    echo "EB + SR $v round $r rc=$? at $(el)s"
  done
  for v in A C; do
    (cd /tmp/$v && timeout 120 ./bench/gpu_bench $ARGS --out $O/all_${v}_$r > $O/all_${v}_${r}.txt 2>&1)
    echo "all designs $v round $r rc=$? at $(el)s"
  done
  [ $(el) -gt 420 ] && break
done
for f in $O/all_A_1.txt $O/all_C_1.txt; do grep "^# f64" $f | head -4; done
gzip -9 $O/*.csv $O/*.log 2>/dev/null
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
