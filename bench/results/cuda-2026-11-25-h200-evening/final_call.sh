#!/bin/bash
# Final call: the OpenMP sweep of HEAD, then a CUDA build and Nsight Compute
# summaries of loom's and cuSPARSE's kernels at N = 1 on soc-Slashdot and R-MAT 1e7.
R=$(cd "$(dirname "$0")" && pwd); OUT=${OUT:-/tmp/out}; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
bash "$R/sweep.sh" || exit 1
cd /tmp && rm -rf cu && mkdir cu && tar xzf "$R/loom-0.1.0.tar.gz" -C cu --strip-components=1 && cd cu || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench) > "$OUT/cubuild.log" 2>&1; echo "cuda build rc=$? at $(el)s"
for case in "soc-Slashdot --rmat ," "nothing --rmat 1e7"; do
  tag=$(echo $case | cut -c1-6)
  timeout 150 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section WarpStateStats --print-summary per-kernel \
    ./bench/gpu_bench --data "$R/benchdata" --only $case --n 1 --dtypes f32 --budget-ms 1 --out /tmp/g_$tag \
    > "$OUT/ncu_$tag.txt" 2>&1
  echo "ncu $tag rc=$? at $(el)s"
done
cd "$OUT" && tar czf ncu.tgz --remove-files ncu_*.txt cubuild.log
