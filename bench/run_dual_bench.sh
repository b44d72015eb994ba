#!/bin/sh
# run_dual_bench.sh - run the dual-side sparsity benchmarks from a build
# directory and keep the output, the CSV and the command in
# bench/results/dual/ of the source tree; exits with the benchmark's status.
#   run_dual_bench.sh cpu [dual_bench arguments]   (Table III + SpGEMM vs OpenBLAS)
#   run_dual_bench.sh gpu [dual_gpu_bench arguments] (SpGEMM vs cuBLAS, cuSPARSE)
set -e
srcdir=$(cd "$(dirname "$0")/.." && pwd)
out=$srcdir/bench/results/dual
mkdir -p "$out"
what=${1:-cpu}
[ $# -gt 0 ] && shift
stamp=$(date -u +%Y%m%dT%H%M%SZ)
. "$srcdir/bench/tee_status.sh"
case $what in
cpu)
    cmd="./bench/dual_bench $*"
    echo "$cmd" > "$out/cpu-$stamp.cmd"
    export DUAL_BENCH_CSV="$out/cpu-$stamp.csv"
    tee_status "$out/cpu-$stamp.txt" ./bench/dual_bench "$@"
    ;;
gpu)
    cmd="./bench/dual_gpu_bench $* --csv $out/gpu-$stamp.csv"
    echo "$cmd" > "$out/gpu-$stamp.cmd"
    tee_status "$out/gpu-$stamp.txt" ./bench/dual_gpu_bench "$@" --csv "$out/gpu-$stamp.csv"
    ;;
*)
    echo "usage: $0 cpu|gpu [arguments]" >&2
    exit 2
    ;;
esac
