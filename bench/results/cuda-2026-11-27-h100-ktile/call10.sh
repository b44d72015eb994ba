#!/bin/bash
# session 28 call 10: per-instruction stall samples of the K-tile
# prototype (V4 KT128 U8, the sum; first launch, final_dense N = 64, whose
# time equals N = 512's): ncu --page source, SASS.
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" && make -j16 lib/libloom.la) > "$OUT/build.log" 2>&1
echo "build rc=$? at $(el)s"
nvcc -std=c++17 -arch=sm_90 -O3 --fmad=false -lineinfo -I include "$R/ktile.cu" -o /tmp/ktile \
  -L lib/.libs -lloom -Xlinker -rpath -Xlinker "$PWD/lib/.libs" -lcusparse > "$OUT/ktile_build.log" 2>&1
echo "ktile build rc=$? at $(el)s"
timeout 150 ncu --clock-control none --section SourceCounters --section WarpStateStats --section SpeedOfLight \
  --kernel-name-base mangled -k regex:"ktile_kernelILi4ELi128ELi8ELi0EE" --launch-count 1 \
  --page source --print-source sass --csv /tmp/ktile "$R/benchdata/dlmc_rn50_mp0.8_final_dense.mtx.gz" \
  > "$OUT/ncu_source.csv" 2> "$OUT/ncu_err.txt"
echo "ncu rc=$? at $(el)s"; wc -l "$OUT/ncu_source.csv"; head -3 "$OUT/ncu_source.csv" | cut -c1-400; tail -3 "$OUT/ncu_err.txt"
timeout 100 ncu --clock-control none --section SpeedOfLight --section LaunchStats --metrics smsp__inst_executed.sum,sm__cycles_elapsed.max \
  --kernel-name-base mangled -k regex:"ktile_kernelILi4ELi128ELi8ELi0EE" --launch-count 1 \
  /tmp/ktile "$R/benchdata/dlmc_rn50_mp0.8_final_dense.mtx.gz" > "$OUT/ncu_sol.txt" 2>&1
echo "ncu2 rc=$? at $(el)s"; grep -E "Duration|inst_executed|cycles_elapsed|Throughput|Elapsed" "$OUT/ncu_sol.txt" | head
