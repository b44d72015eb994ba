#!/bin/bash
# device: build the ktile prototype and run it on the carried matrices
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc -std=c++17 -O3 --fmad=false -arch=sm_90 -I../../backends/cuda -I../../include -I../../lib -o proto proto.cu -lcusparse || exit 1
./proto ${MATS:-*.bin} 2>&1 | tee $OUT/${NAME:-proto}.txt
