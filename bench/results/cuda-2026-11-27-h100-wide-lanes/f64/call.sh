#!/bin/bash
# session 26 call 5: test_cuda after the PR tests were folded into one sweep
# (HEAD), and f64 timings of RB + PR at 32..256 lanes (the wide-lanes kernel
# had only f32 timings) on the inputs where the widths won in f32.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
CM="CMOCKA_CFLAGS=-I$R/cmocka/include"
(./configure -q "$CM" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la bench/gpu_bench tests/test_cuda && make cuda-check-spills) > $OUT/build.log 2>&1
echo "build rc=$?"; grep -h "check_spills: backends/cuda/spmm" $OUT/build.log
timeout 150 ./tests/test_cuda > $OUT/test_cuda.log 2>&1; echo "test_cuda rc=$?"; tail -n 3 $OUT/test_cuda.log
mkdir -p /tmp/sub && for m in mbeacxc dlmc_rn50_mp0.8_final_dense dlmc_rn50_mp0.5_bottleneck_projection_g3 email-Eu-core adder_dcop_05 facebook_combined dlmc_transformer_mp0.95_enc0_attn_q bcsstk16; do
  ln -sf $R/benchdata/$m.mtx.gz /tmp/sub/; done
C="rb-rm-pr:lanes=16,vdl;rb-rm-pr:lanes=32,vdl;rb-rm-pr:lanes=64,vdl;rb-rm-pr:lanes=128,vdl;rb-rm-pr:lanes=256,vdl;rb-rm-sr:vdl,csc;eb-rm-sr:chunk=32,vdl,csc"
LOOM_BENCH_CONFIGS="$C" timeout 200 ./bench/gpu_bench --data /tmp/sub --rmat "" --n 1,2,4,8,16 \
  --dtypes f32,f64 --budget-ms 15 --out $OUT/f64 > $OUT/f64_stdout.txt 2>&1
echo "bench rc=$?"; { date -u; nvidia-smi; } > $OUT/device.txt 2>&1
cd $OUT && tar czf call5.tgz f64* build.log test_cuda.log device.txt && rm -f f64* build.log test_cuda.log device.txt
