#!/bin/sh
# test_manpages.sh - every public function has a man page, and every page
# renders without warnings.
#
# Fails when
#   - a function declared with LOOM_API in include/loom.h (or include/loom/*.h)
#     has no man/man3/<name>.3;
#   - a page in man/man*/ draws a warning from `groff -man -ww` or from
#     `man --warnings -l` (structure only when groff is not installed: .TH and
#     a NAME section);
#   - a ".so" page points to a page that does not exist;
#   - a cross-reference to section 3 or 7 (".BR name (3)") names no page;
#   - a section 3 or 7 page is missing from man/local.mk (it would be left
#     out of the tarball and of `make install`), or local.mk lists a page
#     that does not exist;
#   - a benchmark program's page (bench/man/*.1, see the section below)
#     draws a warning, leaves out a long option or an environment variable
#     of the files it documents, is missing from EXTRA_DIST, or is listed
#     for installation; or a benchmark program has no page.
#
# Run by `make check` (Automake exports srcdir), or by hand:
#   srcdir=/path/to/loom sh tests/test_manpages.sh
# It only reads $srcdir, so it works in VPATH builds and `make distcheck`.

LC_ALL=C
export LC_ALL
# man(1) must not page, ask the terminal for its width, or cache.
MANPAGER=cat
PAGER=cat
MANWIDTH=80
export MANPAGER PAGER MANWIDTH

if [ -z "${srcdir:-}" ]; then
    srcdir=$(dirname "$0")/..
fi
mandir=$srcdir/man
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

if [ ! -f "$srcdir/include/loom.h" ] || [ ! -d "$mandir/man3" ]; then
    echo "test_manpages: cannot find include/loom.h and man/man3 under srcdir=$srcdir" >&2
    exit 99 # a hard error: the test itself is misconfigured
fi

# ------------------------------------------------- functions without a page

# The names of the functions declared LOOM_API: drop preprocessor lines (the
# definition of LOOM_API itself) and comments, join the declarations onto one
# line, then take the identifier before the first "(" of each declaration.
public_functions() {
    for header in "$srcdir/include/loom.h" "$srcdir"/include/loom/*.h; do
        [ -f "$header" ] && cat "$header"
    done |
        awk '{
            line = $0; out = ""
            while (line != "") {
                if (in_comment) {
                    i = index(line, "*/")
                    if (i == 0) line = ""
                    else { line = substr(line, i + 2); in_comment = 0 }
                } else {
                    i = index(line, "/*"); j = index(line, "//")
                    if (j > 0 && (i == 0 || j < i)) { out = out substr(line, 1, j - 1); line = "" }
                    else if (i > 0) { out = out substr(line, 1, i - 1) " "; line = substr(line, i + 2); in_comment = 1 }
                    else { out = out line; line = "" }
                }
            }
            print out
        }' |
        grep -v '^[[:space:]]*#' |
        tr '\n' ' ' |
        grep -o 'LOOM_API[[:space:]][^;{}(]*(' |
        sed -e 's/[[:space:]]*($//' -e 's/.*[^A-Za-z0-9_]//' |
        sort -u
}

functions=$(public_functions)
if [ -z "$functions" ]; then
    fail "found no LOOM_API declarations in include/loom.h (is the parser broken?)"
fi
count=0
for name in $functions; do
    count=$((count + 1))
    [ -f "$mandir/man3/$name.3" ] || fail "$name is declared LOOM_API but man/man3/$name.3 does not exist"
done
echo "checked $count public functions for a man3 page"

# ------------------------------------------------------------ the pages

have_groff=no
command -v groff >/dev/null 2>&1 && have_groff=yes
have_man=no
if command -v man >/dev/null 2>&1 && man --help 2>&1 | grep -q -- '--warnings'; then
    have_man=yes # man-db: knows --warnings and -l
fi
[ $have_groff = yes ] || echo "groff not found: checking the structure of the pages only"
[ $have_man = yes ] || echo "man-db's man not found: skipping the man --warnings check"

# References to loom's own pages in sections 3 and 7: ".BR loom_x (3)" or
# "\fBloom_x\fP(3)" (a "\-" in a name is a hyphen).  Other projects' pages,
# and loom(1) and loom-model(5), which other people write, are not checked.
references() {
    sed -e 's/\\-/-/g' "$1" |
        sed -n -e 's/^\.BR \(loom[A-Za-z0-9_-]*\) (\([37]\)).*/\1.\2/p' \
               -e 's/.*\\fB\(loom[A-Za-z0-9_-]*\)\\f[PR](\([37]\)).*/\1.\2/p'
}

# Page $1 (named $2 in messages) has .TH, NAME and SEE ALSO, and each page
# of loom's that it refers to exists.
check_sections_and_references() {
    grep -q '^\.TH ' "$1" || fail "$2: no .TH line"
    grep -q '^\.SH NAME' "$1" || fail "$2: no NAME section"
    grep -q '^\.SH SEE ALSO' "$1" || fail "$2: no SEE ALSO section"
    for ref in $(references "$1"); do
        ref_section=${ref##*.}
        [ -f "$mandir/man$ref_section/$ref" ] || fail "$2: refers to ${ref%.*}($ref_section), which has no page"
    done
}

# Page $2, a path relative to the folder $1, rendered from $1 by groff and
# by man(1) without a warning; $3 names it in messages.
check_rendering() {
    if [ $have_groff = yes ]; then
        out=$(cd "$1" && groff -man -Tutf8 -ww -z "$2" 2>&1)
        [ -z "$out" ] || fail "$3: groff -man -ww: $out"
    fi
    if [ $have_man = yes ]; then
        out=$(cd "$1" && man --warnings -l "$2" 2>&1 >/dev/null)
        [ -z "$out" ] || fail "$3: man --warnings: $out"
    fi
}

pages=0
for page in "$mandir"/man*/*.[1-9]; do
    [ -f "$page" ] || continue
    pages=$((pages + 1))
    section_dir=$(basename "$(dirname "$page")")
    rel=$section_dir/$(basename "$page")

    # A ".so" page is an alias; its target must exist (paths are relative
    # to the top of the man tree, as man(1) resolves them).
    target=$(sed -n 's/^\.so[[:space:]]\{1,\}//p' "$page" | head -n 1)
    if [ -n "$target" ]; then
        [ -f "$mandir/$target" ] || fail "$rel: .so $target: no such page"
    else
        check_sections_and_references "$page" "$rel"
    fi

    # Render from the top of the man tree so that .so requests resolve.
    check_rendering "$mandir" "$rel" "$rel"
done
echo "checked $pages pages"

# ------------------------------------------------------------ man/local.mk

listed=$(sed -n 's,.*\(man/man[37]/[A-Za-z0-9_.-]*\.[37]\).*,\1,p' "$mandir"/*.mk | sort -u)
for path in $listed; do
    [ -f "$srcdir/$path" ] || fail "man/local.mk lists $path, which does not exist"
done
for page in "$mandir"/man3/*.3 "$mandir"/man7/*.7; do
    [ -f "$page" ] || continue
    path=man/$(basename "$(dirname "$page")")/$(basename "$page")
    echo "$listed" | grep -qx "$path" || fail "$path is not listed in man/local.mk"
done

# ------------------------------------------------------ bench/man pages

# The benchmark programs and their driver scripts are not installed, nor
# are their pages, bench/man/*.1: they go in EXTRA_DIST (bench/local.mk)
# and never in a *_MANS variable.  Each page names the files it documents
# in a comment,
#     .\" source: bench/gpu_bench.cu bench/run_gpu_bench.sh
# and must mention every long option those files parse (each is a string
# literal "--name" there, as strcmp and std::string comparisons spell it)
# and every environment variable they read (getenv("NAME"), or a shell
# variable given a default, ${NAME:-...}).  Every bench/*.c, *.cu and
# *.cpp file that defines main must be the source of a page.
benchdir=$srcdir/bench
benchman=$benchdir/man

# A page as plain text for the searches: "\-" as "-", font changes and
# "\&" dropped.
page_text() {
    sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' "$1"
}

long_options() {
    grep -o '"--[A-Za-z0-9][A-Za-z0-9-]*"' "$1" | tr -d '"' | sort -u
}

environment_variables() {
    {
        grep -o 'getenv("[A-Z_][A-Z0-9_]*")' "$1" | sed 's/^getenv("\(.*\)")$/\1/'
        grep -o '\${[A-Z_][A-Z0-9_]*:\{0,1\}-' "$1" | sed 's/^\${\([A-Z0-9_]*\).*/\1/'
    } | sort -u
}

# Whether the text $1 holds the word $2 (an option or a variable name) on
# its own, not as part of a longer name ("--n" is not in "--no-header").
mentions() {
    printf '%s\n' "$1" | grep -Eq -- "(^|[^A-Za-z0-9_-])$2([^A-Za-z0-9_-]|\$)"
}

# ".BR name (1)" references of a page, for the benchmark pages' links to
# one another and to loom's section 1.
section1_references() {
    sed -e 's/\\-/-/g' "$1" | sed -n 's/^\.BR \([A-Za-z0-9_.-]*\) (1).*/\1/p'
}

bench_pages=0
claimed=""
for page in "$benchman"/*.1; do
    [ -f "$page" ] || continue
    bench_pages=$((bench_pages + 1))
    name=$(basename "$page")
    rel=bench/man/$name
    check_sections_and_references "$page" "$rel"
    for ref in $(section1_references "$page"); do
        [ -f "$benchman/$ref.1" ] || [ -f "$mandir/man1/$ref.1" ] || fail "$rel: refers to $ref(1), which has no page"
    done

    sources=$(sed -n 's/^\.\\" source:[[:space:]]*//p' "$page")
    [ -n "$sources" ] || fail "$rel: no '.\\\" source: FILE...' line naming the files it documents"
    text=$(page_text "$page")
    for src in $sources; do
        if [ ! -f "$srcdir/$src" ]; then
            fail "$rel: its source $src does not exist"
            continue
        fi
        claimed="$claimed $src "
        for option in $(long_options "$srcdir/$src"); do
            mentions "$text" "$option" || fail "$rel: $src parses $option, which the page does not mention"
        done
        for variable in $(environment_variables "$srcdir/$src"); do
            mentions "$text" "$variable" || fail "$rel: $src reads \$$variable, which the page does not mention"
        done
    done

    check_rendering "$benchman" "$name" "$rel"
done

programs=0
for src in "$benchdir"/*.c "$benchdir"/*.cu "$benchdir"/*.cpp; do
    [ -f "$src" ] || continue
    grep -q '^int[[:space:]]\{1,\}main[[:space:]]*(' "$src" || continue
    programs=$((programs + 1))
    path=bench/$(basename "$src")
    case $claimed in
    *" $path "*) ;;
    *) fail "$path is a benchmark program, and no page in bench/man/ names it in its '.\\\" source:' line" ;;
    esac
done
if [ $programs -eq 0 ] && [ -d "$benchdir" ]; then
    fail "found no benchmark program in bench/ (is the search for main broken?)"
fi

# The makefiles' logical lines (continuations joined) that name a bench page.
makefile_lines() {
    for mk in "$srcdir"/Makefile.am "$srcdir"/*/*.mk "$srcdir"/*/*/*.mk; do
        [ -f "$mk" ] || continue
        sed -e ':a' -e '/\\$/{' -e 'N' -e 's/\\\n/ /' -e 'ba' -e '}' "$mk"
    done | grep 'bench/man/'
}
mk_lines=$(makefile_lines)
bench_listed=$(printf '%s\n' "$mk_lines" | grep '^[[:space:]]*EXTRA_DIST[[:space:]]*+\{0,1\}=' |
    grep -o 'bench/man/[A-Za-z0-9_.-]*\.1' | sort -u)
for path in $(printf '%s\n' "$mk_lines" | grep '_MANS[[:space:]]*+\{0,1\}=' | grep -o 'bench/man/[A-Za-z0-9_.-]*'); do
    fail "$path is listed in a *_MANS variable: the benchmark pages are not installed"
done
for path in $bench_listed; do
    [ -f "$srcdir/$path" ] || fail "EXTRA_DIST lists $path, which does not exist"
done
for page in "$benchman"/*.1; do
    [ -f "$page" ] || continue
    path=bench/man/$(basename "$page")
    echo "$bench_listed" | grep -qx "$path" || fail "$path is not in EXTRA_DIST (bench/local.mk): it would be left out of the tarball"
done
echo "checked $bench_pages benchmark pages, for $programs benchmark programs"

if [ $failures -ne 0 ]; then
    echo "$failures problem(s) found"
    exit 1
fi
exit 0
