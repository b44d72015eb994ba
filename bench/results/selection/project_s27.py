#!/usr/bin/python3
"""project_s27.py OUT.csv.gz - the CUDA timings of the code after 149eeb0
(short items sorted only where row_cv >= 1), pieced together from two
builds: the session-27 record (sorted at N >= 8) where that code sorts,
the session-26 sweeps (never sorted) where it does not, and the fastest
of all three where the sort does not apply (N < 8, PR, tile-major).
A projection across runs, for scoring selectors; not a measurement of
one build."""
import csv, gzip, sys

def rows(p):
    with gzip.open(p, 'rt', newline='') as f:
        r = csv.DictReader(f)
        return r.fieldnames, list(r)

fields, s27 = rows('cuda_sweep_h100_s27.csv.gz')
old = {}
for name in ('cuda_sweep_h100_wide.csv.gz', 'cuda_sweep_h100_wide_check.csv.gz'):
    for r in rows(name)[1]:
        k = (r['matrix'], r['dtype'], r['N'], r['strategy'])
        if k not in old or float(r['median_ms']) < float(old[k]['median_ms']):
            old[k] = r
out = []
for r in s27:
    k = (r['matrix'], r['dtype'], r['N'], r['strategy'])
    sorted_walk = int(r['N']) >= 8 and '-sr' in r['design'] and 'tile-major' not in r['strategy']
    if sorted_walk:
        out.append(r if float(r['row_cv']) >= 1.0 or k not in old else old[k])
    else:
        out.append(old[k] if k in old and float(old[k]['median_ms']) < float(r['median_ms']) else r)
with gzip.open(sys.argv[1], 'wt', newline='') as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    w.writerows(out)
