#!/usr/bin/python3
"""compare.py - base time / new time per EB + SR design and case (the
faster of each build's two runs), and geometric means by N and by input.
Run in this folder: /usr/bin/python3 compare.py"""
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


b = [loom_times('ab/ab_base_%d.csv.gz' % i) for i in (1, 2)]
n = [loom_times('ab/ab_new_%d.csv.gz' % i) for i in (1, 2)]
ratio = {k: min(b[0][k], b[1][k]) / min(n[0][k], n[1][k]) for k in b[0]}
by_n, by_input = collections.defaultdict(list), collections.defaultdict(list)
for k, r in ratio.items():
    by_n[k[1]].append(r)
    by_input[k[0]].append(r)
print('%d (input, N, design): base / new %.4f; the two base runs differ by %.4f (geomean of run 1 / run 2)'
      % (len(ratio), geo(list(ratio.values())), geo([b[0][k] / b[1][k] for k in b[0]])))
print('by N: ' + ', '.join('%d %.3f' % (x, geo(v)) for x, v in sorted(by_n.items())))
print('by input: ' + ', '.join('%s %.3f' % (x, geo(v)) for x, v in sorted(by_input.items())))
low = sorted(ratio.items(), key=lambda kv: kv[1])
print('lowest: ' + '; '.join('%s N=%d %s %.3f' % (k[0], k[1], k[2][9:], r) for k, r in low[:4]))
print('highest: ' + '; '.join('%s N=%d %s %.3f' % (k[0], k[1], k[2][9:], r) for k, r in low[-4:]))
