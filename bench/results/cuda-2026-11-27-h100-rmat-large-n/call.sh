#!/bin/bash
# session 27 call 5: why R-MAT 1e7 at N = 512 runs 1.26x slower than
# cuSPARSE ALG2 -- ncu's DRAM bytes, L2 hit rate and issue rate for loom's
# two best designs there and cuSPARSE's kernels (gpu_bench, R-MAT only);
# then racecheck on the quick CUDA suite (the record's call had none).
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench && make -j16 tests/test_cuda) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.per_cycle_active,smsp__issue_active.avg.per_cycle_active,launch__grid_size,launch__block_size,launch__registers_per_thread"
LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=32,vdl,csc;rb-rm-sr:vdl,csc;rb-rm-sr:vdl,csc,tile-major" \
  timeout 200 ncu --clock-control none --metrics "$M" -k regex:"segments|binned|fixup|csr|Csr|spmm|SpMM|mm_" \
  --launch-count 40 ./bench/gpu_bench --only no-real-matrix --rmat 1e7 --n 512 --dtypes f32 --budget-ms 1 \
  --out /tmp/gb > "$OUT/ncu_rmat.txt" 2>&1
echo "ncu rc=$? at $(el)s"
grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|dram__bytes_read|lts__t_sector_hit" "$OUT/ncu_rmat.txt" | head -90
LOOM_CUDA_TEST_QUICK=1 timeout 150 ./libtool --mode=execute compute-sanitizer --tool racecheck \
  --error-exitcode 9 tests/test_cuda > "$OUT/racecheck.log" 2>&1
echo "racecheck rc=$? at $(el)s"; grep -h "ERROR SUMMARY\|RACECHECK SUMMARY\|PASSED\|FAILED" "$OUT/racecheck.log"
