#!/bin/sh
# test_tool.sh - the loom program end to end: every subcommand, every design
# in f32 and f64 (each must be bit-exact against the reference), and bad
# input, which must give a message and a non-zero exit, never a crash.
#
# Run by `make check` from the top build directory (so ./tools/loom is the
# program just built, in VPATH builds and distcheck too); Automake exports
# $srcdir.  LOOM overrides the program, LOOM_TEST_DATA the folder holding
# unittest/ and malformed/ (default: $srcdir/data).
srcdir=${srcdir:-.}
LOOM=${LOOM:-./tools/loom}
data=${LOOM_TEST_DATA:-$srcdir/data}

if test ! -x "$LOOM"; then
    echo "test_tool.sh: $LOOM is not built" >&2
    exit 99
fi
tmp=tests/test_tool.tmp.$$
rm -rf "$tmp" && mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' 0
trap 'exit 1' 1 2 15

failures=0
checks=0
fail() {
    echo "FAIL: $*"
    failures=`expr $failures + 1`
}

# run ARGS...: run loom, keeping stdout, stderr and the exit status.
run() {
    checks=`expr $checks + 1`
    "$LOOM" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if test $rc -ge 128; then
        fail "loom $* crashed (exit status $rc)"
        sed 's/^/  stderr: /' "$tmp/err"
        return 1
    fi
    return 0
}

# expect_ok ARGS...: exit status 0.
expect_ok() {
    run "$@" || return 1
    if test $rc -ne 0; then
        fail "loom $*: exit status $rc, expected 0"
        sed 's/^/  /' "$tmp/err"
        grep -e 'NOT bit-exact' -e 'OUTSIDE' -e 'ERROR' "$tmp/out" | sed 's/^/  /'
        return 1
    fi
    return 0
}

# expect_error STATUS ARGS...: that exit status and a "loom: " message on stderr.
expect_error() {
    want=$1
    shift
    run "$@" || return 1
    if test $rc -ne "$want"; then
        fail "loom $*: exit status $rc, expected $want"
        sed 's/^/  /' "$tmp/err"
    elif ! grep '^loom: ' "$tmp/err" >/dev/null; then
        fail "loom $*: no 'loom: ...' message on stderr"
    fi
}

# expect_output PATTERN WHAT: the last run's stdout contains PATTERN.
expect_output() {
    if ! grep -e "$1" "$tmp/out" >/dev/null; then
        fail "$2: output lacks '$1'"
        sed 's/^/  /' "$tmp/out"
    fi
}

designs="rb-rm-sr rb-rm-pr rb-cm-sr rb-cm-pr eb-rm-sr eb-rm-pr eb-cm-sr eb-cm-pr"

# ---------------------------------------------------------------- basics
expect_ok --version && expect_output '^loom [0-9]' "loom --version"
expect_ok --help && expect_output 'Usage' "loom --help"
for c in spmm info designs; do
    expect_ok $c --help && expect_output "Usage: loom $c" "loom $c --help"
    expect_ok help $c && expect_output "Usage: loom $c" "loom help $c"
done

# ------------------------------------------------------------------ info
if expect_ok info; then
    expect_output 'rows (M): *1005$' "loom info"
    expect_output 'non-zeros: *25571$' "loom info"
    expect_output 'empty rows: *137$' "loom info"
fi
expect_ok info --hardware && expect_output '^  reference *available' "loom info --hardware"

if test -d "$data/unittest"; then
    for f in "$data"/unittest/*.mtx "$data"/unittest/*.smtx; do
        test -f "$f" || continue
        case $f in
        *young1c*) expect_error 2 info "$f" ;; # complex: rejected with a message
        *) expect_ok info "$f" && expect_output '^rows (M):' "loom info $f" ;;
        esac
    done
else
    echo "SKIP: $data/unittest is absent: info on the unit-test matrices not run"
fi

# ------------------------------------------------------------------ spmm
# Every design on every backend this build can run (the cuda backend too, on
# a machine with a GPU), each checked bit for bit against the reference.
backends=`"$LOOM" info --hardware | awk '$2 == "available" { print $1 }'`
test -n "$backends" || fail "loom info --hardware lists no available backend"
for b in $backends; do
    for dtype in f32 f64; do
        for d in $designs; do
            if expect_ok spmm -n 8 -r 1 --backend $b --dtype $dtype --design $d; then
                expect_output '^reference: *bit-exact' "loom spmm --backend $b --dtype $dtype --design $d"
                expect_output '^float64: *within bound' "loom spmm --backend $b --dtype $dtype --design $d"
            fi
        done
    done
done
# Tensor-core designs (f32 operands, rounded to the MMA precision): the
# reference's model bit for bit on the reference backend, on a GPU the
# rigorous bound only; on both the float64 check uses the tensor-core
# bound (the f32 one is far too tight for tf32 or f16 operands).  The
# tiles form runs 16-bit values only on the GPU, which this program does
# not read: there it must say so.
for b in $backends; do
    test "$b" = openmp && continue
    tc_designs="rb-rm-tc:tf32 rb-rm-tc:f16 rb-rm-tc:bf16"
    test "$b" = reference && tc_designs="$tc_designs rb-rm-tc:bf16,tiles"
    for d in $tc_designs; do
        if expect_ok spmm -n 24 -r 1 --backend $b --design $d; then
            expect_output '^float64: *within bound' "loom spmm --backend $b --design $d"
            expect_output 'bound: .*tensor-core bound' "loom spmm --backend $b --design $d"
            test "$b" = reference &&
                expect_output '^reference: *bit-exact' "loom spmm --backend $b --design $d"
        fi
    done
    if test "$b" = cuda; then
        expect_error 2 spmm -n 24 -r 1 --backend cuda --design rb-rm-tc:bf16,tiles
        if test $rc -eq 2 && ! grep 'tiles form runs f16 or bf16 values' "$tmp/err" >/dev/null; then
            fail "loom spmm --backend cuda --design rb-rm-tc:bf16,tiles: no word on the value type"
        fi
    fi
done
for d in rb-cm-pr eb-rm-sr:chunk=64 eb-cm-pr:chunk=32,lanes=4; do
    expect_ok spmm -n 5 -r 1 --layout col --design $d --seed 7 &&
        expect_output '^reference: *bit-exact' "loom spmm --layout col --design $d"
done
expect_ok spmm -n 1 -r 2 && expect_output '^plan: *design .* N = 1$' "loom spmm -n 1"
expect_ok spmm -n 4 -r 1 --threads 1 && expect_output 'why:' "loom spmm --threads 1"

if test -d "$data/unittest"; then
    for f in "$data"/unittest/*.mtx; do
        case $f in *young1c*) continue ;; esac
        expect_ok spmm "$f" -n 3 -r 1 --dtype f64 &&
            expect_output '^reference: *bit-exact' "loom spmm $f"
    done
fi

# --------------------------------------------------------------- designs
if expect_ok designs -n 4 -r 1; then
    count=`grep -c 'bit-exact$' "$tmp/out"`
    test "$count" -ge 8 || fail "loom designs: $count bit-exact rows, expected at least 8"
    expect_output '^\* fastest:' "loom designs"
    expect_output '^auto on reference selects' "loom designs"
fi
expect_ok designs -n 3 -r 1 --dtype f64 --layout col --backend reference &&
    expect_output '^\* fastest:' "loom designs --dtype f64 --layout col"

# ------------------------------------------------------------- bad input
expect_error 1
expect_error 1 nosuchcommand
expect_error 1 --nosuchoption
expect_error 1 spmm --nosuchoption
expect_error 1 spmm --design rb-xx-sr
expect_error 1 spmm --design eb-rm-pr:chunk=7
expect_error 1 spmm -n 0
expect_error 1 spmm -n -3
expect_error 1 spmm -n 2x
expect_error 1 spmm -n
expect_error 1 spmm --dtype f16
expect_error 1 spmm --backend nosuchbackend
expect_error 1 spmm --layout diagonal
expect_error 1 spmm --repeat 0
expect_error 1 spmm a.mtx b.mtx
expect_error 1 info -n 3
expect_error 1 info --hardware=yes
expect_error 2 spmm "$tmp/no-such-file.mtx"
expect_error 2 info "$tmp/no-such-file.mtx"
expect_error 2 designs "$tmp/no-such-file.mtx"
expect_error 2 spmm --x "$tmp/no-such-file.mtx"

# Malformed files made here, so the test does not depend on data/.
printf '%s\n' '%%MatrixMarket matrix coordinate real general' > "$tmp/header-only.mtx"
printf '%s\n' '%%MatrixMarket matrix coordinate real general' '3 3 2' '1 1 1.0' > "$tmp/short.mtx"
printf '%s\n' '%%MatrixMarket matrix coordinate real general' '3 3 1' '4 1 1.0' > "$tmp/out-of-range.mtx"
printf '%s\n' '%%MatrixMarket matrix coordinate real general' '3 3 1' '1 1 abc' > "$tmp/bad-value.mtx"
printf '%s\n' 'not a matrix market file' > "$tmp/garbage.mtx"
: > "$tmp/empty.mtx"
sample=$srcdir/data/sample/email-Eu-core.mtx.gz
test -f "$sample" && head -c 2000 "$sample" > "$tmp/truncated.mtx.gz"
for f in "$tmp"/*.mtx "$tmp/truncated.mtx.gz" "$data"/malformed/*.mtx; do
    test -f "$f" || continue
    # A file may be legal but odd (some of data/malformed): then it must work.
    run info "$f" || continue
    if test $rc -ne 0 && test $rc -ne 2; then
        fail "loom info $f: exit status $rc, expected 0 or 2"
    elif test $rc -eq 2 && ! grep '^loom: reading A: ' "$tmp/err" >/dev/null; then
        fail "loom info $f: no 'loom: reading A: ...' message"
    fi
    run spmm "$f" -n 2 -r 1 || continue
    test $rc -eq 0 || test $rc -eq 2 || fail "loom spmm $f: exit status $rc, expected 0 or 2"
done
# X of the wrong shape: a message, not a crash.
printf '%s\n' '%%MatrixMarket matrix array real general' '2 1' '1.0' '2.0' > "$tmp/x-wrong.mtx"
expect_error 2 spmm --x "$tmp/x-wrong.mtx"

# ------------------------------------ Y against a float64 computation in awk
# lp_afiro is rectangular (27 x 51) and real.  X holds small multiples of
# 1/4, so only A's values and the summation order separate loom from awk.
afiro=$data/unittest/lp_afiro.mtx
if test -f "$afiro"; then
    awk 'BEGIN { k = 51; n = 3
        print "%%MatrixMarket matrix array real general"; print k, n
        for (c = 1; c <= n; c++) for (r = 1; r <= k; r++) print ((r * 7 + c * 3) % 11 - 5) / 4 }' \
        > "$tmp/x.mtx"
    for dtype in f32 f64; do
        tol=1e-5
        test $dtype = f64 && tol=1e-13
        expect_ok spmm "$afiro" --x "$tmp/x.mtx" --output "$tmp/y.mtx" --dtype $dtype -r 1 ||
            continue
        awk -v tol=$tol -v A="$afiro" -v X="$tmp/x.mtx" -v Y="$tmp/y.mtx" '
            function header(file,   line) {   # skip the banner and comments; return the size line
                while ((getline line < file) > 0)
                    if (line !~ /^%/ && line ~ /[0-9]/) return line
                return ""
            }
            BEGIN {
                split(header(A), s); m = s[1]; k = s[2]; nnz = s[3]
                for (e = 0; e < nnz; e++) { getline line < A; split(line, t); ai[e] = t[1]; aj[e] = t[2]; av[e] = t[3] }
                split(header(X), s); n = s[2]
                for (c = 1; c <= n; c++) for (r = 1; r <= k; r++) { getline v < X; x[r, c] = v + 0 }
                split(header(Y), s)
                if (s[1] != m || s[2] != n) { print "Y is " s[1] " x " s[2] ", expected " m " x " n; exit 1 }
                for (c = 1; c <= n; c++) for (r = 1; r <= m; r++) { getline v < Y; y[r, c] = v + 0 }
                for (e = 0; e < nnz; e++) for (c = 1; c <= n; c++) {
                    p = av[e] * x[aj[e], c]; ref[ai[e], c] += p; mag[ai[e], c] += (p < 0 ? -p : p)
                }
                bad = 0
                for (r = 1; r <= m; r++) for (c = 1; c <= n; c++) {
                    d = y[r, c] - ref[r, c]; if (d < 0) d = -d
                    if (d > tol * mag[r, c] + 1e-300) { print "Y(" r "," c ") = " y[r, c] ", awk: " ref[r, c]; bad++ }
                }
                exit bad > 0
            }' > "$tmp/awk.out" 2>&1 ||
            { fail "loom spmm $afiro --dtype $dtype: Y differs from the float64 awk computation"; cat "$tmp/awk.out"; }
    done
else
    echo "SKIP: $afiro is absent: the awk float64 check was not run"
fi

# ------------------------------------------------ cross-check: save, verify
# A run saved on any backend recomputes bit-exactly on the reference; a
# changed file is refused (exit 2); a changed result is reported (exit 3).
for backend in $backends; do
    expect_ok spmm -n 5 --backend "$backend" --design eb-rm-pr:chunk=64,lanes=8 --save "$tmp/run.loom" &&
        expect_output 'saved:' "spmm --save on $backend"
    expect_ok verify "$tmp/run.loom" && expect_output 'bit-exact' "verify of a $backend run"
done
if test -f "$tmp/run.loom"; then
    size=`wc -c < "$tmp/run.loom"`
    # flip one byte of the inputs (in the column indices, past the header)
    cp "$tmp/run.loom" "$tmp/inputs.loom"
    printf '\377' | dd of="$tmp/inputs.loom" bs=1 seek=600 conv=notrunc 2>/dev/null
    expect_error 2 verify "$tmp/inputs.loom"
    grep 'changed after it was written' "$tmp/err" >/dev/null || fail "verify of a changed input: message"
    # flip one byte of the output (the last section)
    cp "$tmp/run.loom" "$tmp/output.loom"
    printf '\100' | dd of="$tmp/output.loom" bs=1 seek=`expr $size - 3` conv=notrunc 2>/dev/null
    expect_error 2 verify "$tmp/output.loom"
    # truncated
    head -c `expr $size - 10` "$tmp/run.loom" > "$tmp/short.loom"
    expect_error 2 verify "$tmp/short.loom"
    grep 'truncated' "$tmp/err" >/dev/null || fail "verify of a truncated record: message"
    expect_error 2 verify "$tmp/no-such-file.loom"
    expect_error 2 verify "$srcdir/data/unittest/west0067.mtx"
fi

echo "test_tool.sh: $checks runs, $failures failures"
test $failures -eq 0
