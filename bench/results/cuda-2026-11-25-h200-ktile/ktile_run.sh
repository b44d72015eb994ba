#!/bin/bash
# ktile_run.sh - ktile helper's device call: build A (768d837) and B (ktile)
# side by side, test_cuda on B, then gpu_bench rounds.  VARIANTS: space
# list of LOOM_CUDA_KTILE values for B runs ("auto" = unset, "0" = off).
R=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/res
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
pack() { (cd /tmp/res && tar czf "$OUT/res.tgz" .); }
build() {
    rm -rf "/tmp/$1" && mkdir -p "/tmp/$1" && tar xzf "$R/$1.tar.gz" -C "/tmp/$1" --strip-components=1 &&
        cd "/tmp/$1" &&
        ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" \
            "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
        make -j8 lib/libloom.la bench/gpu_bench tests/test_cuda
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > /tmp/res/device.txt 2>&1
date -u +%FT%TZ >> /tmp/res/device.txt
build A > /tmp/res/buildA.log 2>&1 & build B > /tmp/res/buildB.log 2>&1 & wait
echo "built at $(el)s"; tail -n1 /tmp/res/buildA.log; tail -n1 /tmp/res/buildB.log
grep -h -A2 ktile_kernel /tmp/B/backends/cuda/spmm_ktile.ptxas.log | grep -c "0 bytes spill stores" 
(cd /tmp/B && timeout ${TTEST:-200} ./tests/test_cuda > /tmp/res/testB.log 2>&1
 echo "test B rc=$? at $(el)s"; grep -E "FAILED|PASSED|ERROR|differ|cuda runs" /tmp/res/testB.log | head -8)
pack
args="--data $R/benchdata --only ${ONLY} --rmat , --n ${NS} --dtypes ${DT:-f32} --budget-ms ${BUD:-8}"
for r in $(seq 1 "${ROUNDS:-1}"); do
    (cd /tmp/A && timeout 120 ./bench/gpu_bench $args --out /tmp/res/A$r > /tmp/res/A${r}_stdout.txt 2>&1)
    echo "A$r rc=$? at $(el)s"; pack
    for v in ${VARIANTS:-auto}; do
        if [ "$v" = auto ]; then unset LOOM_CUDA_KTILE; else export LOOM_CUDA_KTILE=$v; fi
        (cd /tmp/B && timeout 120 ./bench/gpu_bench $args --out /tmp/res/B${v}_$r > /tmp/res/B${v}_${r}_stdout.txt 2>&1)
        echo "B$v $r rc=$? at $(el)s"; pack
    done
    unset LOOM_CUDA_KTILE
done
pack
