#!/usr/bin/env python3
"""Per case (matrix, dtype, N): each build's best loom time (the faster of
its rounds' best designs), the ratio of the first build's time to each
other's (> 1: the other faster), and cuSPARSE's best algorithm.
Usage: compare.py DIR NAME1 NAME2 ...  (reads DIR/NAMEr.csv.gz, r = 1, 2)"""
import csv, gzip, math, sys


def best(path, cusparse=False):
    d = {}
    for r in csv.DictReader(gzip.open(path, 'rt')):
        if (r['impl'].startswith('cusparse')) != cusparse or r['impl'] == 'features':
            continue
        k = (r['matrix'], r['dtype'], int(r['n']))
        t = float(r['median_us'])
        if k not in d or t < d[k][0]:
            d[k] = (t, r['config'])
    return d


folder, names = sys.argv[1], sys.argv[2:]
runs = {n: [best('%s/%s%d.csv.gz' % (folder, n, i)) for i in (1, 2)] for n in names}
cus = [best('%s/%s%d.csv.gz' % (folder, names[0], i), True) for i in (1, 2)]
print('%-44s %s  %s  cuSPARSE  %s/cuSPARSE' % ('matrix dtype N', ' '.join('%8s' % n for n in names),
      ' '.join('%s/%s' % (names[0], n) for n in names[1:]), names[0]))
logs = {n: [] for n in names[1:]}
for k in sorted(runs[names[0]][0]):
    t = [min(runs[n][0][k][0], runs[n][1][k][0]) for n in names]
    c = min(cus[0][k][0], cus[1][k][0])
    for n, x in zip(names[1:], t[1:]):
        logs[n].append(math.log(t[0] / x))
    print('%-44s %s  %s  %8.2f  %.3f' % ('%s %s %d' % k, ' '.join('%8.2f' % x for x in t),
          ' '.join('%7.3f' % (t[0] / x) for x in t[1:]), c, c / t[0]))
for n in names[1:]:
    print('geomean %s/%s over %d cases: %.3f' % (names[0], n, len(logs[n]), math.exp(sum(logs[n]) / len(logs[n]))))
