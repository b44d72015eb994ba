#!/bin/sh
# setup.sh - one command from a fresh Debian/Ubuntu machine to a built loom
# and a demo run: installs the build dependencies (apt-get, through sudo when
# not root), generates and runs configure, builds, and runs `loom spmm` on
# the sample matrix embedded in the program.
#
#   ./setup.sh [configure options...]      e.g. ./setup.sh --without-cuda
set -eu
cd "$(dirname "$0")"

as_root=""
[ "$(id -u)" -eq 0 ] || as_root="sudo"
packages="build-essential autoconf automake libtool pkg-config libcmocka-dev libhwloc-dev zlib1g-dev groff-base"
missing=""
for p in $packages; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    $as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq $missing
fi

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure "$@"
make -j"$(nproc)"

echo
echo "setup: demo - loom spmm on the embedded sample matrix (email-Eu-core), N = 32"
./tools/loom spmm -n 32
