#!/usr/bin/python3
"""Per-case A/B of interleaved gpu_bench runs (loom rows only): the best of
each variant's runs, and their ratio.  Usage: compare.py BASE_A,BASE_B
VAR_A,VAR_B (CSV files), e.g. compare.py off1.csv,off2.csv on1.csv,on2.csv."""
import csv, math, sys

def load(paths):
    best = {}
    for path in paths.split(','):
        for r in csv.DictReader(open(path)):
            if r['impl'] != 'loom':
                continue
            k = (r['matrix'], int(r['n']), r['config'])
            t = float(r['median_us'])
            best[k] = min(best.get(k, t), t)
    return best

base, var = load(sys.argv[1]), load(sys.argv[2])
ratios = []
print('%-28s %3s %-28s %10s %10s %7s' % ('matrix', 'N', 'config', 'base us', 'var us', 'b/v'))
for k in sorted(base):
    if k in var:
        r = base[k] / var[k]
        ratios.append(r)
        print('%-28s %3d %-28s %10.2f %10.2f %7.3f' % (k[0][:28], k[1], k[2][:28], base[k], var[k], r))
print('geometric mean base/var over %d cases: %.3f' % (len(ratios),
      math.exp(sum(map(math.log, ratios)) / len(ratios))))
