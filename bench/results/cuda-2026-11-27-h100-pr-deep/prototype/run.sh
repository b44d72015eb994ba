#!/bin/bash
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc -std=c++17 -O3 --fmad=false -arch=sm_90 -I../../backends/cuda -I../../include -I../../lib -o pr1 pr1.cu -lcusparse || exit 1
./pr1 ${MATS:-*.bin} 2>&1 | tee $OUT/${NAME:-pr1}.txt
