#!/bin/sh
# test_tc_probe_selftest.sh - the MMA probe's fit, without a GPU: a known
# accumulation model plays the device, and bench/tc_probe --selftest must
# recover it (or one that agrees on every crafted and random case).
probe=${top_builddir:-.}/bench/tc_probe
if [ ! -x "$probe" ]; then
    echo "SKIP: $probe is not built"
    exit 77
fi
status=0
for model in "sequential" \
             "fused group=16 align_bits=25 align=rz final=rz" \
             "fused group=8 align_bits=24 align=rd final=rz" \
             "fused group=4 align_bits=26 align=rz final=rne"; do
    if "$probe" --selftest "$model" 500 > probe.out 2>&1; then
        echo "ok: $model"
    else
        echo "FAIL: $model"
        cat probe.out
        status=1
    fi
done
rm -f probe.out
exit $status
