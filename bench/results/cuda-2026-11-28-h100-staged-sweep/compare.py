#!/usr/bin/python3
"""Per-case A/B of call 1's interleaved gpu_bench runs (loom rows only),
by dtype: the best of each variant's two runs, and base/variant.
Usage: compare.py DIR (the folder of output/c1.tgz, unpacked)."""
import csv, math, sys

def load(paths):
    best = {}
    for path in paths:
        for r in csv.DictReader(open(path)):
            if r['impl'] != 'loom':
                continue
            k = (r['matrix'], r['dtype'], int(r['n']), r['config'])
            t = float(r['median_us'])
            best[k] = min(best.get(k, t), t)
    return best

d = sys.argv[1]
off = load([d + '/s0_1.csv', d + '/s0_2.csv'])
for name, tag in (('rule (A\'s pairs streamed)', 's1'), ('forced everywhere', 's2')):
    var = load([d + '/%s_1.csv' % tag, d + '/%s_2.csv' % tag])
    print('## off / staged, %s' % name)
    print('%-26s %3s %-28s %9s %9s %6s' % ('matrix', 'dt', 'config', 'off us', 'on us', 'ratio'))
    for k in sorted(off):
        if k in var:
            print('%-26s %3s %-28s %9.1f %9.1f %6.3f' % (k[0][:26], k[1], k[3][:28], off[k], var[k],
                                                       off[k] / var[k]))
    for dt in ('f32', 'f64'):
        for label, pick in (('R-MAT 1e7 and 1e8', lambda m: m in ('rmat-1e+07', 'rmat-1e+08')),
                            ('all', lambda m: True)):
            rs = [off[k] / var[k] for k in off if k in var and k[1] == dt and pick(k[0])]
            print('%s, %s: geometric mean %.3f over %d cases' % (dt, label,
                  math.exp(sum(map(math.log, rs)) / len(rs)), len(rs)))
    print()
