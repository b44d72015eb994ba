#!/usr/bin/python3
"""smtx_inputs.py - matrices in DLMC's text format (.smtx) for tc_bench --smtx.

  smtx_inputs.py convert IN.mtx[.gz] OUT.smtx
      a Matrix Market coordinate file (general or symmetric; real, integer
      or pattern): its pattern, duplicates merged, rows sorted
  smtx_inputs.py rmat SCALE EDGE_FACTOR SEED OUT.smtx
      an R-MAT graph (Graph500's a, b, c = 0.57, 0.19, 0.19) of 2^SCALE
      vertices and EDGE_FACTOR * 2^SCALE edges drawn, duplicates merged:
      power-law rows, a few of them thousands of non-zeros long

.smtx: line 1 "M, K, nnz"; line 2 the M+1 row offsets; line 3 the column
indices.  Needs numpy.
"""
import gzip
import sys

import numpy as np


def write_smtx(path, m, k, rows, cols):
    key = np.unique(rows.astype(np.int64) * k + cols.astype(np.int64))
    r, c = key // k, key % k
    ro = np.zeros(m + 1, dtype=np.int64)
    np.add.at(ro, r + 1, 1)
    ro = np.cumsum(ro)
    with open(path, 'w') as f:
        f.write('%d, %d, %d\n' % (m, k, len(c)))
        f.write(' '.join(map(str, ro)) + '\n')
        f.write(' '.join(map(str, c)) + '\n')
    lens = np.diff(ro)
    print('%s: %d x %d, %d non-zeros, rows: mean %.1f, max %d' % (path, m, k, len(c), lens.mean(), lens.max()))


def convert(src, dst):
    opener = gzip.open if src.endswith('.gz') else open
    with opener(src, 'rt') as f:
        header = f.readline().lower().split()
        if len(header) < 5 or header[1] != 'matrix' or header[2] != 'coordinate':
            sys.exit('%s: not a Matrix Market coordinate file' % src)
        symmetric = header[4] in ('symmetric', 'skew-symmetric', 'hermitian')
        line = f.readline()
        while line.startswith('%'):
            line = f.readline()
        try:
            m, k, nnz = map(int, line.split()[:3])
            data = np.loadtxt(f, usecols=(0, 1), dtype=np.int64, ndmin=2)
        except ValueError as e:
            sys.exit('%s: not a readable coordinate file (%s)' % (src, e))
    if len(data) != nnz:
        sys.exit('%s: %d entries, the header says %d' % (src, len(data), nnz))
    r, c = data[:, 0] - 1, data[:, 1] - 1
    bad = np.flatnonzero((r < 0) | (r >= m) | (c < 0) | (c >= k))
    if len(bad):
        sys.exit('%s: entry %d, (%d, %d), is outside the %d x %d matrix' %
                 (src, bad[0] + 1, r[bad[0]] + 1, c[bad[0]] + 1, m, k))
    if symmetric:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
    write_smtx(dst, m, k, r, c)


def rmat(scale, edge_factor, seed, dst):
    rng = np.random.default_rng(seed)
    n_edges = edge_factor << scale
    a, b, c = 0.57, 0.19, 0.19
    r = np.zeros(n_edges, dtype=np.int64)
    col = np.zeros(n_edges, dtype=np.int64)
    for bit in range(scale):
        u = rng.random(n_edges)
        down = u >= a + b            # quadrants c, d: the row's bit is 1
        right = ((u >= a) & (u < a + b)) | (u >= a + b + c)
        r |= down.astype(np.int64) << bit
        col |= right.astype(np.int64) << bit
    write_smtx(dst, 1 << scale, 1 << scale, r, col)


def count(name, text, low, high):
    try:
        v = int(text)
    except ValueError:
        v = None
    if v is None or not low <= v <= high:
        sys.exit('rmat: %s must be an integer from %d to %d (here %r)' % (name, low, high, text))
    return v


def main(argv):
    if len(argv) == 4 and argv[1] == 'convert':
        return convert(argv[2], argv[3])
    if len(argv) == 6 and argv[1] == 'rmat':
        scale = count('SCALE', argv[2], 1, 30)
        edge_factor = count('EDGE_FACTOR', argv[3], 1, 1 << 20)
        return rmat(scale, edge_factor, count('SEED', argv[4], 0, (1 << 63) - 1), argv[5])
    sys.exit(__doc__)


if __name__ == '__main__':
    try:
        main(sys.argv)
    except OSError as e:  # a missing input, an unwritable output
        sys.exit('smtx_inputs.py: %s' % e)
