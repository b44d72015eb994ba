#!/usr/bin/python3
"""compare.py - the tables of this folder's README, from the gpu_bench
CSVs of prototype/ (call 3) and ab/ (call 4).  Run in this folder:
/usr/bin/python3 compare.py"""
import collections
import csv
import gzip
import math


def loom_times(path):
    t = {}
    for r in csv.DictReader(gzip.open(path, 'rt')):
        if r['impl'] == 'loom':
            t[(r['matrix'][:26], int(r['n']), r['config'])] = float(r['median_us'])
    return t


def geo(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def prototype():
    """Per design and case: min(v0, v0b) over each variant (above 1: faster)."""
    vs = ['v0', 'colsort', 'nofix', 'colsort_nofix', 'v0b']
    t = {v: loom_times('prototype/%s.csv.gz' % v) for v in vs}
    ratio = collections.defaultdict(list)
    print('## prototype (call 3): min(v0, v0b) time / variant time, EB + SR at chunk 128\n')
    print('| input | N | design | colsort | nofix | colsort + nofix |')
    print('|---|---|---|---|---|---|')
    for k in sorted(t['v0']):
        base = min(t['v0'][k], t['v0b'][k])
        for v in vs:
            ratio[v].append(base / t[v][k])
        if k[2].startswith('eb-rm-sr:chunk=128,') and k[1] >= 128:
            print('| %s | %d | %s | %.3f | %.3f | %.3f |' % (k[0], k[1], k[2][9:], base / t['colsort'][k],
                                                          base / t['nofix'][k], base / t['colsort_nofix'][k]))
    print('\ngeometric mean over %d (input, N, design):' % len(ratio['v0']),
          ', '.join('%s %.3f' % (v, geo(x)) for v, x in ratio.items()), '\n')


def ab():
    """Best design per case, base against new (the faster of two runs each)."""
    t = {}
    for v in ('base', 'new'):
        a, b = loom_times('ab/ab_%s_1.csv.gz' % v), loom_times('ab/ab_%s_2.csv.gz' % v)
        t[v] = {k: min(a[k], b.get(k, a[k])) for k in a}
    print('## A/B (call 4): the faster of two runs each, base time / new time\n')
    print('| input | N | best design, base | best design, new (us) | best | EB chunk 128 | EB chunk 128, tile-major |')
    print('|---|---|---|---|---|---|---|')
    cases = sorted({k[:2] for k in t['base']})
    best = []
    for c in cases:
        def pick(v):
            d = {k[2]: x for k, x in t[v].items() if k[:2] == c}
            w = min(d, key=d.get)
            return w, d[w], d
        wb, xb, db = pick('base')
        wn, xn, dn = pick('new')
        best.append(xb / xn)
        e = [db[k] / dn[k] for k in ('eb-rm-sr:chunk=128,vdl,csc', 'eb-rm-sr:chunk=128,vdl,csc,tile-major')]
        print('| %s | %d | %.1f | %.1f %s | %.3f | %.3f | %.3f |' % (c[0], c[1], xb, xn, wn, xb / xn, e[0], e[1]))
    print('\nbest design, geometric mean over %d cases: %.4f' % (len(best), geo(best)))


prototype()
ab()
