#!/usr/bin/python3
"""vs_cusparse.py CALLDIR - per matrix, loom's best design over cuSPARSE's
best (the summary's confirmed speedup), median over each side's rounds,
for the all-designs runs A (main) and C (f64 wide everywhere); the ratio
against cuSPARSE in the same process cancels the drift between runs."""
import csv, gzip, math, os, statistics, sys

d = sys.argv[1] if len(sys.argv) > 1 else 'call4'
sp = {}
for side in 'AC':
    for r in (1, 2, 3):
        path = os.path.join(d, f'all_{side}_{r}_summary.csv.gz')
        for row in csv.DictReader(gzip.open(path, 'rt')):
            sp.setdefault(row['matrix'], {}).setdefault(side, []).append(float(row['speedup']))
print('%-44s %7s %7s %7s' % ('matrix', 'A', 'C', 'C/A'))
logs = []
for m in sorted(sp):
    a, c = statistics.median(sp[m]['A']), statistics.median(sp[m]['C'])
    logs.append(math.log(c / a))
    print('%-44s %7.3f %7.3f %7.3f' % (m, a, c, c / a))
print('geomean C/A over %d: %.3f' % (len(logs), math.exp(sum(logs) / len(logs))))
