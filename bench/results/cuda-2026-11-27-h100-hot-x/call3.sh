#!/bin/bash
# session 28 call 3: the narrow EB + SR walk (N <= 4) with more blocks per
# SM, asked of ptxas by __launch_bounds__(256, k) (LOOM_CUDA_NARROW_OCC=k,
# a trial switch): k = 0 (as main), 5, 6, 8, alternating, each its own
# process, on R-MAT 1e6-1e8 and eight graphs, N = 1, 2, 4, f32 and f64,
# EB + SR designs only.  Release tarball; test_cuda under k = 8 and 5.
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > "$OUT/device.txt" 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench && make -j16 tests/test_cuda) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"
for k in 8 5; do
  LOOM_CUDA_NARROW_OCC=$k LOOM_CUDA_TEST_QUICK=1 timeout 60 ./tests/test_cuda > "$OUT/test_cuda_occ$k.log" 2>&1
  echo "test_cuda occ=$k rc=$? at $(el)s"; grep -E "PASSED|FAILED|runs compared" "$OUT/test_cuda_occ$k.log" | tail -3
done
mkdir -p /tmp/m "$OUT/b"
for m in soc-Slashdot0902 email-Enron wiki-Vote PGPgiantcompo luxembourg_osm mdual astro-ph rajat01; do ln -sf "$R/benchdata/$m.mtx.gz" /tmp/m/; done
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=1024,vdl,csc;eb-rm-sr:chunk=256,vdl,csc;eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=32,vdl,csc"
i=0
for k in 0 5 6 8 0 5 6 8; do
  i=$((i+1))
  LOOM_CUDA_NARROW_OCC=$k timeout 60 ./bench/gpu_bench --data /tmp/m --rmat 1e6,1e7,1e8 --n 1,2,4 --dtypes f32,f64 \
    --budget-ms 8 --out "$OUT/b/run${i}_occ$k" > "$OUT/b/run${i}_occ$k.txt" 2>&1
  echo "run $i occ=$k rc=$? at $(el)s"
done
tar czf "$OUT/bench.tgz" -C "$OUT" b
cd "$OUT/b" && for f in run*_occ*.txt; do grep -E " N=[124] " "$f" | grep -v "^#" | awk -v r="$f" '{print r, $1, $2, $3, $5}'; done > "$OUT/times.txt"
rm -rf "$OUT/b"; echo "done at $(el)s"; wc -l "$OUT/times.txt"
