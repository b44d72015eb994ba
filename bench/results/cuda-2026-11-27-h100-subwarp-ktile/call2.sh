#!/bin/bash
# session 30 call 2: kt2.cu with form C (pairs staged in shared memory
# beside X's tile) on three dense-ish DLMC layers; SASS of one form C shape.
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$(pwd)/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; } > $OUT/device.txt 2>&1
cd /tmp && rm -rf loom-0.1.0 && tar xzf "$R/loom-0.1.0.tar.gz" && cd loom-0.1.0 || exit 1
(./configure -q --disable-static "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
  make -j16 lib/libloom.la) > $OUT/build.log 2>&1 &
nvcc -std=c++17 -arch=sm_90 -O3 --fmad=false -Xptxas -v -I include "$R/kt2/kt2.cu" -c -o /tmp/kt2.o > $OUT/kt2_build.log 2>&1
echo "kt2 compile rc=$? at $(el)s"
wait; echo "lib build at $(el)s"
nvcc -arch=sm_90 /tmp/kt2.o -o /tmp/kt2 -L lib/.libs -lloom -Xlinker -rpath -Xlinker "$PWD/lib/.libs" -lcusparse || exit 1
cuobjdump -sass -fun '_Z11kt2c_kernelILi16ELi4ELi128ELi8ELi16ELb0EEvlllPKlPKiiiPK4int2PKfPf' /tmp/kt2 > $OUT/kt2c_g16_u8_16r.sass 2>&1
B=$R/benchdata
timeout 240 /tmp/kt2 $B/dlmc_rn50_mp0.8_final_dense.mtx.gz $B/dlmc_rn50_mp0.5_bottleneck_projection_g3.mtx.gz \
  $B/dlmc_transformer_mp0.9_dec0_ffn_conv1.mtx.gz > $OUT/kt2.txt 2>&1
echo "kt2 rc=$? at $(el)s"; grep -v "loom rb-rm-sr:vdl,csc,tile\|ALG2" $OUT/kt2.txt
