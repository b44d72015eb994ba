#!/usr/bin/python3
"""Base against pdl, case by case: loom's best time, cuSPARSE's (drift), and
each strategy family's best time.  Usage: compare.py base_summary.csv
base_gpu_bench.csv(.gz) pdl_summary.csv pdl_gpu_bench.csv(.gz)"""
import csv, gzip, math, sys, collections

def opened(p):
    return gzip.open(p, 'rt') if p.endswith('.gz') else open(p)

def summary(p):
    return {(r['matrix'], int(r['n'])): r for r in csv.DictReader(opened(p)) if r['dtype'] == 'f32'}

def families(p):
    best = {}
    for r in csv.DictReader(opened(p)):
        if r['impl'] != 'loom' or r['dtype'] != 'f32' or '=' in r['config'].split(':')[0]:
            continue
        k = (r['matrix'], int(r['n']), r['config'].split(':')[0])
        t = float(r['median_us'])
        best[k] = min(best.get(k, t), t)
    return best

def g(v):
    return math.exp(sum(map(math.log, v)) / len(v))

sa, fa, sb, fb = summary(sys.argv[1]), families(sys.argv[2]), summary(sys.argv[3]), families(sys.argv[4])
keys = sorted(sa)
print('geomean base time / pdl time over %d cases:' % len(keys))
print('  loom best (confirmed) %.3f' % g([float(sa[k]['loom_us']) / float(sb[k]['loom_us']) for k in keys]))
print('  cuSPARSE best (drift) %.3f' % g([float(sa[k]['cusparse_us']) / float(sb[k]['cusparse_us']) for k in keys]))
by = collections.defaultdict(list)
for k in fa:
    if k in fb:
        by[k[2]].append(fa[k] / fb[k])
print('each family\'s best first-pass time, by family:')
for f in sorted(by):
    print('  %-10s %4d cases %.3f' % (f, len(by[f]), g(by[f])))
byn = collections.defaultdict(list)
for k in fa:
    if k in fb and k[2].endswith('-sr') and k[2].startswith('eb'):
        byn[k[1]].append(fa[k] / fb[k])
print('eb-rm-sr by N:', ' '.join('%d:%.3f' % (n, g(byn[n])) for n in sorted(byn)))
