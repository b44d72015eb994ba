#!/usr/bin/python3
"""dlmc_npz.py - the DLMC set in a form small enough to carry to a device call
(the call's whole tree is 64 MiB; ../shared/data/dlmc is 21 MB of gzip),
and a subset of it written back for tc_bench --dlmc.

  dlmc_npz.py pack DLMC_DIR OUT.npz
      every .smtx.gz under DLMC_DIR as uint16 row lengths and column deltas
      (xz it after: 9.2 MB)
  dlmc_npz.py unpack NPZ OUT_DIR [--max-row-over L] [--k-over K]
      the .smtx files back, byte for byte, in DLMC's folders
      (model/magnitude_pruning/sparsity); only the layers with a row of more
      than L non-zeros, or more than K columns, where those are given

Needs numpy.  (The earlier scripts of bench/results/tc/run-2026-11-28-h200-s36
did the same in two files; the call scripts since repeat their filters.)
"""
import gzip
import os
import sys

import numpy as np


def pack(src, dst):
    arrs = {}
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith('.smtx.gz'):
                continue
            p = os.path.join(root, f)
            rel = os.path.relpath(p, src)
            with gzip.open(p, 'rt') as fh:
                hdr = fh.readline()
                ro = np.array(fh.readline().split(), np.int64)
                ci = np.array(fh.readline().split(), np.int64)
            lens = np.diff(ro)
            d = ci.copy()
            starts = ro[:-1][lens > 0]
            d[1:] = ci[1:] - ci[:-1]
            d[starts] = ci[starts]  # each row's first column as is, then deltas
            if lens.max(initial=0) >= 65536 or d.min(initial=0) < 0 or d.max(initial=0) >= 65536:
                sys.exit('%s: a row length or column step does not fit 16 bits' % p)
            arrs['hdr:' + rel] = np.frombuffer(hdr.encode(), np.uint8)
            arrs['len:' + rel] = lens.astype(np.uint16)
            arrs['col:' + rel] = d.astype(np.uint16)
    np.savez(dst, **arrs)


def unpack(src, out, max_row_over=None, k_over=None):
    z = np.load(src)
    written = 0
    for key in z.files:
        kind, rel = key.split(':', 1)
        if kind != 'hdr':
            continue
        hdr = z[key].tobytes().decode()
        lens = z['len:' + rel].astype(np.int64)
        k = int(hdr.replace(',', ' ').split()[1])
        keep = (max_row_over is None and k_over is None) or \
            (max_row_over is not None and lens.max(initial=0) > max_row_over) or \
            (k_over is not None and k > k_over)
        if not keep:
            continue
        d = z['col:' + rel].astype(np.int64)
        ro = np.concatenate(([0], np.cumsum(lens)))
        c = np.cumsum(d)
        before = np.concatenate(([0], c))[ro[:-1]]  # the running sum before each row
        ci = c - np.repeat(before, lens)
        p = os.path.join(out, rel[:-3])
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'w') as f:
            f.write(hdr)
            f.write(' '.join(map(str, ro)) + ' \n')
            f.write(' '.join(map(str, ci)) + ' \n')
        written += 1
    print('%s: %d layers written' % (out, written))


def main(argv):
    if len(argv) == 4 and argv[1] == 'pack':
        return pack(argv[2], argv[3])
    if len(argv) >= 4 and argv[1] == 'unpack':
        opts, rest = {}, argv[4:]
        while rest:
            if len(rest) < 2 or rest[0] not in ('--max-row-over', '--k-over'):
                sys.exit(__doc__)
            opts[rest[0]] = int(rest[1])
            rest = rest[2:]
        return unpack(argv[2], argv[3], opts.get('--max-row-over'), opts.get('--k-over'))
    sys.exit(__doc__)


if __name__ == '__main__':
    try:
        main(sys.argv)
    except (OSError, ValueError, KeyError) as e:  # a missing file, a foreign npz
        sys.exit('dlmc_npz.py: %s' % e)
