#!/bin/sh
# run_gpu_bench.sh - run the GPU benchmark of a build (make gpu-bench
# first), keeping the CSVs, the plot, the device and the exact command in a
# results folder; exits with gpu_bench's status.
# Usage: bench/run_gpu_bench.sh BUILD_DIR RESULTS_DIR [gpu_bench options...]
set -e
build=$1; results=$2; shift 2
mkdir -p "$results"
{
    echo "date: `date -u +%Y-%m-%dT%H:%M:%SZ`"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>/dev/null || true
    echo "command: $build/bench/gpu_bench --out $results/gpu_bench $*"
} > "$results/gpu_bench_run.txt"
. "`dirname $0`/tee_status.sh"
tee_status "$results/gpu_bench_stdout.txt" "$build/bench/gpu_bench" --out "$results/gpu_bench" "$@"
python3 "`dirname $0`/plot_gpu.py" "$results/gpu_bench_summary.csv" "$results/gpu_bench.png" || true
