#!/bin/sh
# test_bench_options.sh - cpu_bench refuses a bad option value, a missing
# value or an unknown option with a message that names it and exit status
# 2, before it measures or reads anything; -h prints the usage and exits 0.
#
# Run by `make check` from the build directory (cpu_bench is one of its
# check programs when the build has OpenMP), or by hand there:
#   sh tests/test_bench_options.sh
bench=./bench/cpu_bench
if test ! -x "$bench"; then
    echo "SKIP: $bench is not built (no OpenMP)"
    exit 77
fi
fail=0
out=${TMPDIR:-/tmp}/loom-bench-options.$$
trap 'rm -rf "$out" "$out.d"' EXIT

# expect STATUS TEXT ARGS...: cpu_bench ARGS exits with STATUS and says TEXT.
# With no inputs and nothing generated, a value wrongly accepted ends the
# run after its bandwidth probe instead of starting a whole benchmark.
expect() {
    want=$1 text=$2
    shift 2
    "$bench" --data /nonexistent --no-synthetic --out "$out.d" "$@" > "$out" 2>&1
    got=$?
    if test "$got" != "$want" || ! grep -q -e "$text" "$out"; then
        echo "FAIL: cpu_bench $*: status $got (want $want), output:"
        sed 's/^/    /' "$out"
        fail=1
    else
        echo "ok: cpu_bench $* -> $got"
    fi
}

for bad in 0 -2 x 3x 2.5 2000000; do
    expect 2 "--threads takes a whole number" --threads "$bad"
    expect 2 "--rounds takes a whole number" --rounds "$bad"
done
for bad in 0 -1 0.5s abc 4000; do
    expect 2 "--min-time takes a number" --min-time "$bad"
done
for bad in 0 4,x 1,-4 , 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17; do
    expect 2 "--n takes" --n "$bad"
done
expect 2 "unknown option '--no-such-option'" --no-such-option
expect 2 "--threads needs a value" --threads
expect 0 "usage: cpu_bench" -h
exit $fail
