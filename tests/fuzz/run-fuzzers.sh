#!/bin/sh
# run-fuzzers.sh - build loom's fuzz targets with clang (libFuzzer + ASan +
# UBSan) straight from the sources, and run each for a bounded time on a
# seed corpus of the unit-test and malformed matrices.
#   run-fuzzers.sh SRCDIR [SECONDS]
# A crash leaves its input in tests/fuzz/findings/; copy it into
# tests/fuzz/regressions/ so test_fuzz_regressions replays it in make check.
# An out-of-memory finding whose header claims hundreds of millions of rows
# with a few entries is the 2 GB limit below, not a bug: CSR keeps M + 1
# row offsets (2026-11-29: 317777777 x 3 with one entry asked for 2.5 GB;
# with a 6 GB limit the reader ran 300 s, 10.7 M inputs, with no finding).
set -eu
src=$(cd "$1" && pwd)
seconds=${2:-60}
CC=${FUZZ_CC:-clang}
work=${FUZZ_WORKDIR:-fuzz-work}
mkdir -p "$work/corpus-mm" "$work/corpus-csr" "$src/tests/fuzz/findings"
printf '#define LOOM_HAVE_ZLIB 1\n' > "$work/config.h"
flags="-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -ffp-contract=off -fsanitize=fuzzer,address,undefined
       -I$work -I$src/include -I$src/lib -I$src/reference -DLOOM_DATADIR=\"/nonexistent\" -DLOOM_SRCDIR=\"/nonexistent\""
sources="$src/lib/*.c $src/reference/*.c"
for target in fuzz_mm_read fuzz_csr_plan; do
    echo "fuzz: building $target"
    # shellcheck disable=SC2086
    $CC $flags $sources "$src/tests/fuzz/$target.c" -o "$work/$target" -lz -lm -lpthread
done
cp "$src"/data/unittest/* "$src"/data/malformed/* "$work/corpus-mm/" 2>/dev/null || true
cp "$src"/tests/fuzz/regressions/* "$work/corpus-mm/" 2>/dev/null || true
status=0
for target in fuzz_mm_read fuzz_csr_plan; do
    corpus="$work/corpus-mm"
    [ "$target" = fuzz_csr_plan ] && corpus="$work/corpus-csr"
    echo "fuzz: running $target for $seconds s"
    "$work/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$src/tests/fuzz/findings/$target-" "$corpus" 2>&1 | tail -5 || status=1
done
[ "$status" -eq 0 ] && echo "fuzz: no crash found" || echo "fuzz: crashes saved in tests/fuzz/findings/"
exit "$status"
