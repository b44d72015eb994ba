#!/bin/bash
# Session 50, call 3 (H200): where EB + SR's N = 1 product spends its time
# in a chain, by leaving parts out.  D = make dist of branch diag-n1-parts
# (main plus LOOM_DIAG_SKIP, read by the host launch code: "long", "short",
# "swept" leave those blocks of the walk out, "fixup" the fix-up kernel;
# the bits are then wrong, the times are what is left).  Carry:
# .devrun/D.tar.gz, .devrun/cmocka, .devrun/bd.
set -u
export OUT=${OUT:-/tmp/out}; O=/tmp/s50c3; rm -rf $O; mkdir -p $O
R=$(pwd)/.devrun; BD=${BD:-$R/bd}
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $O/device.txt 2>&1
mkdir -p /tmp/cm && cp $R/cmocka/* /tmp/cm/ && ln -sf libcmocka.so.0 /tmp/cm/libcmocka.so
cd /tmp && rm -rf vd && mkdir vd && tar xzf $R/D.tar.gz -C vd --strip-components=1 && cd vd &&
  (./configure -q CMOCKA_CFLAGS=-I/tmp/cm "CMOCKA_LIBS=-L/tmp/cm -lcmocka -Wl,-rpath,/tmp/cm" &&
   make -j16 lib/libloom.la bench/gpu_bench) > $O/build.log 2>&1
echo "build rc=$? at $(el)s"
export LOOM_BENCH_CONFIGS="eb-rm-sr:chunk=128,vdl,csc;eb-rm-sr:chunk=64,vdl,csc;rb-rm-pr:lanes=32,vdl"
for r in 1 2; do
  for skip in none fixup swept long short "long,short" "long,short,swept" "long,short,swept,fixup"; do
    tag=${skip//,/+}
    LOOM_DIAG_SKIP=$skip timeout 100 ./bench/gpu_bench --data $BD --only email-Enron,wiki-Vote --rmat 1e6 --n 1 \
        --dtypes f32 --budget-ms 4 --confirm 1 --graph ${GRAPH:-20} --out $O/${tag}_$r > $O/${tag}_${r}_stdout.txt 2>&1
    echo "$skip round $r rc=$? at $(el)s: $(grep -h '^email-Enron' $O/${tag}_$r.csv | grep eb-rm-sr:chunk=128 | head -1 | awk -F'"' '{print $3}')"
  done
done
gzip -f $O/*.csv $O/*.log 2>/dev/null
mkdir -p $OUT && tar czf $OUT/s50c3.tgz -C /tmp s50c3
echo "done at $(el)s"
