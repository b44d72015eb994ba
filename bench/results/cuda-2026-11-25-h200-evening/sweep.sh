#!/bin/bash
# The OpenMP selection sweep alone (device_run.sh's CPU_SWEEP block) on the lent machine's CPU.
R=$(cd "$(dirname "$0")" && pwd); OUT=${OUT:-/tmp/out}; T0=$(date +%s)
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q --without-cuda "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka" && make -j16 lib/libloom.la bench/loom-sweep) > "$OUT/build.log" 2>&1 || { tail "$OUT/build.log"; exit 1; }
echo "built at $(( $(date +%s) - T0 ))s"; lscpu | head -20 > "$OUT/cpu.txt"
mkdir -p "$OUT/cpu_sweep"; pairs=${SWEEP_PAIRS:-4}; files=$(ls "$R"/benchdata/*.mtx.gz)
for k in $(seq 0 $((pairs - 1))); do
  list=$(echo "$files" | awk -v k=$k -v p=$pairs 'NR % p == k')
  LOOM_OMP_BIND=0 LOOM_TUNE_CACHE=/tmp/tune_$k.txt timeout 240 taskset -c $((2*k+2)),$((2*k+3)) ./bench/loom-sweep --threads 2 --rounds 8 --budget-ms 150 --max-runs 60 --n 1,2,4,8,16,32,64,128,256 --out "$OUT/cpu_sweep/sweep_$k.csv" --select-out "$OUT/cpu_sweep/select_$k.csv" $list 2> "$OUT/cpu_sweep/err_$k.txt" &
done; wait
echo "sweep done at $(( $(date +%s) - T0 ))s: $(cat "$OUT"/cpu_sweep/sweep_*.csv | wc -l) rows"
tar czf "$OUT/cpu_sweep.tgz" -C "$OUT" cpu_sweep cpu.txt build.log && rm -rf "$OUT/cpu_sweep" "$OUT/cpu.txt" "$OUT/build.log"
