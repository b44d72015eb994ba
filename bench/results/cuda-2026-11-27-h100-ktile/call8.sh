#!/bin/bash
# session 28 call 8: the SASS of the K-tile prototype's V4 KT128 U8 kernel
# (cuobjdump is not on the build machine): where its ~35 issued
# instructions per non-zero and warp come from.
R=$PWD/.devrun
nvcc -std=c++17 -arch=sm_90 -O3 --fmad=false -I include -cubin -o /tmp/k.cubin "$R/ktile.cu" > "$OUT/nvcc.log" 2>&1
echo "nvcc rc=$?"
cuobjdump -sass /tmp/k.cubin > /tmp/all.sass 2>&1
awk '/Function : _Z12ktile_kernelILi4ELi128ELi8EE/{p=1} p&&/Function : /&&!/ILi4ELi128ELi8EE/{p=0} p' /tmp/all.sass > "$OUT/ktile_v4_kt128_u8.sass"
wc -l "$OUT/ktile_v4_kt128_u8.sass"
grep -oE "^\s+/\*[0-9a-f]{4}\*/\s+[@!A-Z0-9.]+( [A-Z0-9.]+)?" "$OUT/ktile_v4_kt128_u8.sass" | awk '{print $2}' | sed 's/^@!\?P[0-9]*//' | sort | uniq -c | sort -rn | head -30
