#!/bin/bash
# session 25 call 13: the device's resident-strip bound for the selector: test_tc (with test_resident_bound), a short tc_bench, loom info --hardware
export OUT=${OUT:-/tmp/out}
R=$(pwd)
( rm -rf /tmp/L && mkdir -p /tmp/L && tar xzf .devrun/loom-0.1.0.tar.gz -C /tmp/L --strip-components=1 && cd /tmp/L &&
  ./configure -q "CMOCKA_CFLAGS=-I$R/.devrun/cmocka/include" "CMOCKA_LIBS=-L$R/.devrun/cmocka/lib -lcmocka -Wl,-rpath,$R/.devrun/cmocka/lib" &&
  make -j8 lib/libloom.la tools/loom tests/test_api ) > $OUT/build_lib.log 2>&1 &
SKIP_PROBE=1 TC_BASELINE=/none BENCH_BUDGET=100 BENCH_ARGS="--n 256 --limit 60" OUT=$OUT/tc bash bench/tc_gpu_run.sh > $OUT/tc_console.txt 2>&1
echo "tc_gpu_run rc=$?"; grep -i "resident strips\|PASSED\|FAILED\|FAIL" $OUT/tc_console.txt $OUT/tc/*.txt 2>/dev/null | head -12
wait
cd /tmp/L && ./tools/loom info --hardware > $OUT/info_hardware.txt 2>&1; echo "info rc=$?"; cat $OUT/info_hardware.txt | grep -i -A1 cuda | head -6
./tests/test_api > $OUT/test_api.log 2>&1; echo "test_api rc=$?"; tail -2 $OUT/test_api.log
cd $OUT && tar czf tcbound.tgz --remove-files $(ls | grep -v '^tcbound.tgz$')
