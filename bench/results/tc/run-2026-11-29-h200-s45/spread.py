#!/usr/bin/env python3
"""spread.py - the tables of this folder's README from the calls' CSVs.

  python3 spread.py [DLMC_DIR]     (default ../../../../../shared/data/dlmc)

For each call (a plain build against main at d9ecca7 in one process, all
452 DLMC layers, N = 64, 128, 512 tensor cores only and N = 256 with the
peers), base/new (> 1: new faster):
  - by kernel: the layers that run the resident kernel with a row the plan
    spreads (rx_spread_rows' rule; call 2 also asks rx_try's, see below),
    the resident layers with none, and those that run the gather kernel,
    whose code did not change - the measurement's own bias;
  - issue #5's cuBLAS criterion in that run (N = 256, sparsity 0.95-0.98,
    the plan's pick faster than cuBLAS f16), for new and for main;
  - the resident layers with a row to spread, by the longest row over a
    warp's share of the non-zeros (nnz over the grid's warps a strip):
    the measurement behind rx_try's RX_SPREAD_OVER_LOAD.
Calls 3-4 (trial_multicast.patch, not kept): the resident layers by shape,
base/new in a tuning build with LOOMTC_RX_CLUSTER (1: main's copy, the
bias of the tuning build; 0: the bulk tensor copy with no cluster; 2, 4:
clusters sharing the strip by multicast) and LOOMTC_RX_BOX (rows a box).
Call 5 (not kept): the strip copied by cp.async.cg (L2 only) instead of .ca,
resident and gather layers (the gather kernel unchanged: the bias).
The rules are the H200's (132 multiprocessors).  Needs the DLMC row
lengths (.smtx.gz).
"""
import csv, glob, gzip, math, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SMS, WARPS = 132, 16


def load(path):
    with gzip.open(os.path.join(HERE, path), 'rt') as f:
        return {(r['matrix'], int(r['n'])): r for r in csv.DictReader(f)}


def geo(xs):
    xs = list(xs)
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')


def t(r, col):
    return float(r[col])


def width(k):
    return 64 if k <= 1613 else 32


def warps_a_strip(m, k, n):
    """The resident grid's warps over the rows (rx_try's chunks x RX_WARPS)."""
    strips = (n + width(k) - 1) // width(k)
    return max(1, min(SMS // strips, (m + WARPS - 1) // WARPS)) * WARPS


def resident(m, k, nnz, n):
    """rx_try's rule, with the rows as records."""
    if k > 2904:
        return False
    w = width(k)
    blocks = warps_a_strip(m, k, n) // WARPS * ((n + w - 1) // w)
    gpc = nnz * n / (blocks * k * w)
    return m >= SMS * WARPS * 8 or (blocks * WARPS >= 12 * SMS and gpc >= (0.5 if w == 64 else 0.75))


def to_spread(L, m, nnz, ks):
    """rx_spread_rows: rows of 8-64 groups past 1.5 times the mean, not tall."""
    return m < SMS * WARPS * 8 and any(8 <= (l + ks - 1) // ks <= 64 and l > 1.5 * nnz / m for l in L)


def call(name, folder, lens):
    c = load(folder + '/all/tc_bench.csv.gz')
    c.update(load(folder + '/full256.csv.gz'))
    print('\n== %s: base/new by kernel' % name)
    for ks in (16, 8):
        for n in (64, 128, 256, 512):
            groups = {'resident, a row to spread': [], 'resident, none': [], 'gather (unchanged)': []}
            for (mat, nn), r in c.items():
                if nn != n:
                    continue
                m, k, nnz = int(r['m']), int(r['k']), int(r['nnz'])
                ratio = t(r, 'base_f16_k%d_us' % ks) / t(r, 'tc_f16_k%d_us' % ks)
                g = ('gather (unchanged)' if not resident(m, k, nnz, n) else
                     'resident, a row to spread' if to_spread(lens[mat], m, nnz, ks) else 'resident, none')
                groups[g].append(ratio)
            print('  k%-2d N=%-3d ' % (ks, n) + '  '.join('%s: %3d layers %.3f' % (g, len(v), geo(v))
                                                     for g, v in groups.items()))
    won = {'new': 0, 'base': 0}
    tot = 0
    for (mat, n), r in c.items():
        if n != 256 or float(r['sparsity']) < 0.95:
            continue
        tot += 1
        f = r['auto_form']
        for side, pre in (('new', 'tc'), ('base', 'base')):
            col = 'tc_f16_tiles_us' if f == 'tiles' else '%s_f16_%s_us' % (pre, f[5:])
            won[side] += t(r, col) < t(r, 'cublas_f16_us')
    print('  the cuBLAS criterion in that run: new %d, main %d of %d' % (won['new'], won['base'], tot))
    print('  by the longest row over a warp\'s share (resident layers with a row to spread): share bucket, layers, base/new')
    for ks in (16, 8):
        for n in (64, 128, 256, 512):
            bk = {}
            for (mat, nn), r in c.items():
                m, k, nnz = int(r['m']), int(r['k']), int(r['nnz'])
                if nn != n or not resident(m, k, nnz, n) or not to_spread(lens[mat], m, nnz, ks):
                    continue
                over = max(lens[mat]) / (nnz / warps_a_strip(m, k, n))
                b = next(x for x in (0.5, 1, 1.5, 2, 3, 5, math.inf) if over < x)
                bk.setdefault(b, []).append(t(r, 'base_f16_k%d_us' % ks) / t(r, 'tc_f16_k%d_us' % ks))
            print('  k%-2d N=%-3d ' % (ks, n) + '  '.join('<%-3g %3d %.3f' % (b, len(v), geo(v))
                                                     for b, v in sorted(bk.items())))


def multicast():
    print('\n== calls 3-4, the strip multicast (tuning builds against main at f258392): resident layers, k16, base/new')
    runs = [('call 3', 'c3/cluster%d.csv.gz' % c, 'cluster %d, box 32' % c) for c in (1, 2, 4)]
    runs += [('call 4', 'c4/c%s_box%s.csv.gz' % v, 'cluster %s, box %s' % v)
             for v in (('1', '32'), ('0', '32'), ('0', '128'), ('2', '32'), ('2', '128'))]
    for call, path, what in runs:
        d = load(path)
        differ = sum(int(r['base_bits_differ']) != 0 for r in d.values())
        for n in sorted({k[1] for k in d}):
            by = {}
            for (mat, nn), r in d.items():
                m, k, nnz = int(r['m']), int(r['k']), int(r['nnz'])
                if nn == n and resident(m, k, nnz, n):
                    by.setdefault((m, k), []).append(t(r, 'base_f16_k16_us') / t(r, 'tc_f16_k16_us'))
            allr = [x for v in by.values() for x in v]
            print('  %s %-17s N=%-3d all %3d %.3f | ' % (call, what, n, len(allr), geo(allr)) +
                  ' '.join('%dx%d %.2f' % (a, b, geo(v)) for (a, b), v in sorted(by.items()) if len(v) >= 8) +
                  ('' if differ == 0 else '  (%d runs differ!)' % differ))


def strip_cg():
    d = load('c5/all/tc_bench.csv.gz')
    print('\n== call 5, the strip by cp.async.cg against main at 8593880 (base/new, k16; %d of %d runs differ)'
          % (sum(int(r['base_bits_differ']) != 0 for r in d.values()), len(d)))
    for n in (256, 512):
        g = {True: [], False: []}
        for (mat, nn), r in d.items():
            if nn == n:
                g[resident(int(r['m']), int(r['k']), int(r['nnz']), n)].append(
                    t(r, 'base_f16_k16_us') / t(r, 'tc_f16_k16_us'))
        print('  N=%d resident %3d layers %.3f  gather (unchanged) %3d layers %.3f' % (
            n, len(g[True]), geo(g[True]), len(g[False]), geo(g[False])))


def main():
    dlmc = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '../../../../../shared/data/dlmc')
    lens = {}
    for f in glob.glob(os.path.join(dlmc, '*/*/*/*.smtx.gz')):
        p = f.split(os.sep)
        with gzip.open(f, 'rt') as h:
            h.readline()
            ro = [int(x) for x in h.readline().split()]
        lens[p[-4] + '/' + p[-2] + '/' + p[-1][:-8]] = [b - a for a, b in zip(ro, ro[1:])]
    if not lens:
        sys.exit('spread.py: no DLMC .smtx.gz under %s (give the folder as the argument)' % dlmc)
    call('call 1, trial_spread_block.patch as session 44 kept it', 'c1', lens)
    call('call 2, with rx_try spreading only where the longest row has 2 warps\' shares', 'c2', lens)
    multicast()
    strip_cg()


if __name__ == '__main__':
    main()
