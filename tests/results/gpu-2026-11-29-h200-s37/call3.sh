#!/bin/bash
# session 37 call 3 (H200 host): main after the OpenMP changes of the day
# (narrow X on AVX2 kernels, the 256-bit tail, 64-byte aligned host memory;
# no CUDA code changed since session 35's verified tree): the CUDA suites
# and memcheck on the quick subset, and test_openmp plus an AVX-512 / AVX2
# A/B on this host's CPU (a second x86 machine for the rule).
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c3
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; lscpu; } > $OUT/c3/device.txt 2>&1
grep -E "Model name|^Flags" $OUT/c3/device.txt | cut -c1-120
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 && make -j16 tests/test_cuda tests/test_cuda_api tests/test_dual_cuda tests/test_tc tests/test_openmp &&
  make cuda-check-spills) > $OUT/c3/build.log 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills\|warning:" $OUT/c3/build.log | tail -3
for t in test_cuda_api test_cuda test_tc test_dual_cuda; do
  timeout 150 ./tests/$t > $OUT/c3/$t.log 2>&1
  echo "$t rc=$? at $(el)s"; grep -E "PASSED|FAILED|compared|differ" $OUT/c3/$t.log | tail -3
done
LOOM_CUDA_TEST_QUICK=1 timeout 120 ./libtool --mode=execute compute-sanitizer --tool memcheck --leak-check full \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > $OUT/c3/memcheck_test_cuda.log 2>&1
echo "memcheck test_cuda (quick) rc=$? at $(el)s"; grep -hE "ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED" $OUT/c3/memcheck_test_cuda.log | tail -3
OMP_NUM_THREADS=4 timeout 120 ./tests/test_openmp > $OUT/c3/test_openmp.log 2>&1
echo "test_openmp rc=$? at $(el)s"; grep -E "^# |PASSED|FAILED" $OUT/c3/test_openmp.log | tail -8
# AVX-512 against AVX2 kernels on this CPU (MIT8, citeseer_allx, 4 threads;
# columns as bench/results/cpu-2026-11-29-spr-isa/isa_sweep.txt)
for m in MIT8 citeseer_allx; do for dt in f32 f64; do for n in 2 4 8 16 20 64; do
  for d in rb-rm-sr eb-rm-sr:chunk=4096; do
  a=$(LOOM_OMP_ISA=avx512 ./tools/loom spmm $R/mats/$m.mtx.gz -n $n -b openmp -d $d -t $dt -j 4 -r 30 2>&1 | awk '/time:/{print $2}')
  b=$(LOOM_OMP_ISA=avx2 ./tools/loom spmm $R/mats/$m.mtx.gz -n $n -b openmp -d $d -t $dt -j 4 -r 30 2>&1 | awk '/time:/{print $2}')
  echo "$m $dt $n $d $a $b"
done; done; done; done > $OUT/c3/isa_ab.txt 2>&1
echo "isa a/b at $(el)s"; ./tools/loom info --hardware 2>&1 | grep -A1 "SIMD" | head -3
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
