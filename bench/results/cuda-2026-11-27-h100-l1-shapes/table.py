#!/usr/bin/python3
"""The prototype's variants side by side: for each (matrix, N), each fixed
strategy's time (us) under each variant, and cuSPARSE's best.
Usage: table.py DIR (the unpacked r/ of r.tgz)."""
import csv, math, os, sys

V = ['v0', 'v0b', 'v1', 'v2', 'v3', 'v4', 'v5']
d, cus = {}, {}
for v in V:
    for r in csv.DictReader(open(os.path.join(sys.argv[1], v + '.csv'))):
        k = (r['matrix'][:22], int(r['n']))
        if r['impl'] == 'loom':
            d[(v,) + k + (r['config'],)] = float(r['median_us'])
        else:
            cus[k] = min(cus.get(k, 1e9), float(r['median_us']))
cfgs = sorted({k[3] for k in d})
short = lambda c: c.replace('eb-rm-sr:chunk=', 'eb').replace(',vdl,csc', '').replace('rb-rm-sr:vdl,csc', 'rb').replace('tile-major', 'tm')
print('%-22s %4s %6s %-4s' % ('matrix', 'N', 'cuSP', 'var'), ' '.join('%8s' % short(c) for c in cfgs), '    best')
for m in sorted(cus):
    for v in V:
        t = [d.get((v,) + m + (c,), float('nan')) for c in cfgs]
        print('%-22s %4d %6.1f %-4s' % (m[0], m[1], cus[m], v), ' '.join('%8.1f' % x for x in t), '%8.1f' % min(t))
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
print('\ngeomean over the (matrix, N) cases of v0 best / variant best:')
for v in V[1:]:
    print('  %-4s %.3f' % (v, g([min(d[('v0',) + m + (c,)] for c in cfgs) / min(d[(v,) + m + (c,)] for c in cfgs) for m in cus])))
