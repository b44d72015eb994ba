#!/bin/bash
# device: build the occupancy/U prototype and run it on the carried matrices
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
nvcc -std=c++17 -O3 --fmad=false -arch=sm_90 -I../../backends/cuda -I../../include -I../../lib -o occ occ.cu -lcusparse || exit 1
for f in bins/*.bin.gz; do gunzip -kf $f; done
NS=${NS:-16,32,64,128} ./occ ${MATS:-bins/*.bin} > $OUT/${NAME:-occ}.csv 2>&1
tail -3 $OUT/${NAME:-occ}.csv
