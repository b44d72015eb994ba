#!/bin/bash
# session 33 call 6: call 5's two low cases (DLMC transformer mp0.95
# enc0_attn_q, 512 x 512, at N = 64 and 128: one design timed 9.1 and
# 27.6 us in the same run) timed again, twice, same tarball.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/c6
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi; } > $OUT/c6/device.txt 2>&1
mkdir -p /tmp/sub && xz -dc $R/benchdata_xz/dlmc_transformer_mp0.95_enc0_attn_q.mtx.xz | gzip -1 > /tmp/sub/dlmc_transformer_mp0.95_enc0_attn_q.mtx.gz
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q && make -j16 lib/libloom.la bench/gpu_bench) > $OUT/c6/build.log 2>&1
echo "build rc=$? at $(el)s"
for round in 1 2; do
  timeout 60 ./bench/gpu_bench --data /tmp/sub --rmat '' --n 32,64,128,256 --dtypes f32 --budget-ms 15 \
    --out $OUT/c6/r$round > $OUT/c6/r${round}_stdout.txt 2>&1
  echo "round $round rc=$? at $(el)s"; grep -E "^dlmc" $OUT/c6/r${round}_stdout.txt
done
cd $OUT && tar czf c6.tgz c6 && rm -rf c6
