#!/bin/bash
# device: build the bins prototype and run it on the carried matrices
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
nvcc -std=c++17 -O3 --fmad=false -arch=sm_90 -I../../backends/cuda -I../../include -I../../lib -o binsp bins.cu -lcusparse || exit 1
for f in m/*.bin.gz; do gunzip -kf $f; done
NS=${NS:-64,128,256,512} ./binsp ${MATS:-m/*.bin} > $OUT/${NAME:-bins}.csv 2>&1
tail -3 $OUT/${NAME:-bins}.csv; grep -c MISMATCH $OUT/${NAME:-bins}.csv
