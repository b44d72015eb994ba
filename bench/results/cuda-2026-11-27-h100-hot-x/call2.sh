#!/bin/bash
# session 28 call 2: hot x (EB + SR at N = 1, x's most read entries in
# shared memory), now staged by cp.async, the short segments' list entries
# loaded two ahead; built from the release tarball: test_cuda (full), memcheck
# of the quick suite, then gpu_bench at N = 1 on R-MAT 1e6-1e8 and
# soc-Slashdot0902 with hot x off, on (1024 x 1 block per SM) and two
# other block shapes, alternating, each its own process.
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > "$OUT/device.txt" 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench && make -j16 tests/test_cuda && make cuda-check-spills) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"; grep -h "check_spills: backends/cuda/spmm" "$OUT/build.log"
timeout 150 ./tests/test_cuda > "$OUT/test_cuda.log" 2>&1
echo "test_cuda rc=$? at $(el)s"; grep -E "PASSED|FAILED|runs compared|hot x|ERROR" "$OUT/test_cuda.log" | tail -8
LOOM_CUDA_TEST_QUICK=1 timeout 80 ./libtool --mode=execute compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 tests/test_cuda > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY" "$OUT/memcheck.log"
mkdir -p /tmp/m "$OUT/b"; ln -sf "$R/benchdata/soc-Slashdot0902.mtx.gz" /tmp/m/
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=1024,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=128,vdl,csc"
i=0
for v in off on kb96 s512x2 kb48 off on; do
  i=$((i+1))
  case $v in
    off) E="LOOM_CUDA_HOT_X=0" ;;
    on) E="LOOM_CUDA_HOT_X=1" ;;
    s512x2) E="LOOM_CUDA_HOT_X=1 LOOM_CUDA_HOT_X_SHAPE=512,2" ;;
    kb96) E="LOOM_CUDA_HOT_X=1 LOOM_CUDA_HOT_X_SHAPE=1024,1,96" ;;
    kb48) E="LOOM_CUDA_HOT_X=1 LOOM_CUDA_HOT_X_SHAPE=1024,1,48" ;;
  esac
  env $E timeout 90 ./bench/gpu_bench --data /tmp/m --rmat 1e6,1e7,1e8 --n 1 --dtypes f32,f64 --budget-ms 10 \
    --out "$OUT/b/run${i}_$v" > "$OUT/b/run${i}_$v.txt" 2>&1
  echo "run $i $v rc=$? at $(el)s"; grep -E " N=1 " "$OUT/b/run${i}_$v.txt" | grep -v "^#" | cut -c1-175
done
M="gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.per_cycle_active,smsp__issue_active.avg.per_cycle_active,launch__grid_size,launch__block_size,launch__registers_per_thread"
for v in 0 1; do
  LOOM_CUDA_HOT_X=$v LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=1024,vdl,csc" timeout 60 ncu --clock-control none --metrics "$M" \
    -k regex:"segments|gather_hot" --launch-count 4 ./bench/gpu_bench --only no-real-matrix --rmat 1e7 --n 1 --dtypes f32 \
    --budget-ms 1 --out /tmp/gb > "$OUT/b/ncu_hot$v.txt" 2>&1
  echo "ncu hot=$v rc=$? at $(el)s"; grep -E "^  [a-zA-Z_].*\(|duration|issue_active|warps_active|sector_hit|srcunit_tex" "$OUT/b/ncu_hot$v.txt" | head -24
done
tar czf "$OUT/bench.tgz" -C "$OUT" b && rm -rf "$OUT/b"
echo "done at $(el)s"
