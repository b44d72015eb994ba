#!/bin/bash
# session 48 call 3 (H200): the release tarball of 027f6dc (make dist),
# built with CUDA the Autotools way, and its GPU tests: test_cuda (every
# CUDA-core design bit for bit; their fix-ups' launch helper moved to
# pdl.cuh), test_cuda_api (device memory, streams, graph capture of every
# design, tensor cores included), test_tc; no spills (cuda-check-spills).
# Carry: .devrun/loom-0.1.0.tar.gz, .devrun/cmocka.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/c3; mkdir -p $O
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/cm && cp $R/cmocka/* /tmp/cm/ && ln -sf libcmocka.so.0 /tmp/cm/libcmocka.so
mkdir -p /tmp/L && tar xzf $R/loom-0.1.0.tar.gz -C /tmp/L --strip-components=1 && cd /tmp/L &&
  ./configure -q CMOCKA_CFLAGS=-I/tmp/cm "CMOCKA_LIBS=-L/tmp/cm -lcmocka -Wl,-rpath,/tmp/cm" > $O/build.log 2>&1 &&
  make -j16 lib/libloom.la tests/test_cuda tests/test_cuda_api tests/test_tc >> $O/build.log 2>&1 &&
  make cuda-check-spills >> $O/build.log 2>&1
echo "built rc=$? at $(el)s"; grep -iE "spill|error|warning" $O/build.log | grep -v "0 bytes spill" | head -8
for t in test_cuda_api test_tc test_cuda; do
  timeout 170 ./tests/$t > $O/$t.log 2>&1
  echo "$t rc=$? at $(el)s"; grep -E "PASSED|FAILED|checked|calls in a row|capture" $O/$t.log | tail -6
done
gzip -f $O/*.log 2>/dev/null
mkdir -p $OUT && tar czf $OUT/c3.tgz -C /tmp c3
echo "done at $(el)s"
