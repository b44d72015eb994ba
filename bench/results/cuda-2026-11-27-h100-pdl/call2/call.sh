#!/bin/bash
# session 31 call 2 (call 1 ran test_cuda, memcheck, racecheck on pdl but lost
# the pdl bench to the 8-file limit): programmatic dependent launch of the EB fix-ups (and
# their loads batched).  Builds main (base) and the change (pdl) side by
# side; test_cuda, memcheck and racecheck on pdl; the f32 bench of both.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/device.txt 2>&1
build() { # name targets...
  local n=$1; shift
  mkdir -p /tmp/$n && cd /tmp/$n && tar xzf "$R/$n.tar.gz" && cd loom-0.1.0 &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j8 lib/libloom.la "$@" && make cuda-check-spills
}
(build base bench/gpu_bench > $OUT/build_base.log 2>&1; echo "base build rc=$? at $(el)s") &
(build pdl bench/gpu_bench > $OUT/build_pdl.log 2>&1; echo "pdl build rc=$? at $(el)s") &
wait
for n in base pdl; do
  cd /tmp/$n/loom-0.1.0; mkdir -p $OUT/bench_$n
  timeout 180 ./bench/run_gpu_bench.sh . $OUT/bench_$n --data $R/benchdata --dtypes f32 --budget-ms 15 > $OUT/bench_$n/console.txt 2>&1
  echo "bench $n rc=$? at $(el)s"; grep "^# f32\|^# rmat" $OUT/bench_$n/console.txt
done
cd $OUT && tar czf results.tgz build_*.log bench_base bench_pdl && rm -rf build_*.log bench_base bench_pdl
