#!/usr/bin/python3
"""variants.py - the table of this folder's README: per (matrix, N), the
fastest of the candidates gpu_bench had before (the first eight configs
of configs.txt that it lists) and of all 26, against cuSPARSE's best;
then the geometric-mean gain of adding subsets of the variants.
Run in this folder: /usr/bin/python3 variants.py"""
import collections
import csv
import gzip
import math

BASE = ['rb-rm-sr:vdl,csc', 'eb-rm-sr:chunk=128,vdl,csc', 'eb-rm-sr:chunk=256,vdl,csc',
        'eb-rm-sr:chunk=128,vdl,csc,tile-major', 'rb-rm-sr:vdl,csc,tile-major',
        'rb-rm-sr:coarsen=1,csc', 'rb-rm-sr:coarsen=2,csc', 'eb-rm-sr:chunk=128,coarsen=1,csc']
ADDED = ['eb-rm-sr:chunk=64,vdl,csc', 'eb-rm-sr:chunk=512,vdl,csc', 'rb-rm-sr:coarsen=4,csc']


def geo(v):
    return math.exp(sum(map(math.log, v)) / len(v))


for fn in ('real.csv.gz', 'rmat.csv.gz'):
    by = collections.defaultdict(dict)
    cs = collections.defaultdict(lambda: 1e30)
    for r in csv.DictReader(gzip.open(fn, 'rt')):
        k = (r['matrix'], int(r['n']))
        if r['impl'] == 'loom':
            by[k][r['config']] = float(r['median_us'])
        elif r['impl'] == 'cusparse':
            cs[k] = min(cs[k], float(r['median_us']))
    print('| input | N | cuSPARSE us | before: best us (ratio) | all 26: best us (ratio) | the best |')
    print('|---|---|---|---|---|---|')
    gains = collections.defaultdict(list)
    for k in sorted(by):
        d = by[k]
        old = min(d[c] for c in BASE if c in d)
        best = min(d, key=d.get)
        print('| %s | %d | %.1f | %.1f (%.3f) | %.1f (%.3f) | %s |' %
              (k[0][:30], k[1], cs[k], old, cs[k] / old, d[best], cs[k] / d[best], best))
        gains['the three added'].append(old / min(d[c] for c in BASE + ADDED if c in d))
        gains['all 26'].append(old / d[best])
    print()
    for name, v in gains.items():
        print('%s: %s over %d cases, best before / best with %s = %.4f' % (fn, name, len(v), name, geo(v)))
    print()
