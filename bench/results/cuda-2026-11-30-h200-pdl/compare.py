#!/usr/bin/python3
"""Session 49's A/B of the CUDA-core kernels by programmatic dependent launch
(A: plain launches, B: PDL), both timed as chains (gpu_bench --graph 20).

Reads the summary CSVs of calls 2-4 (c2: two rounds, c3 and c4: one round
each; together the 37 real matrices of ../shared/data/bench and R-MAT 1e6
and 1e7, f32, N = 1..512) and prints:
  - B over A per case: loom's best design (the fastest of both rounds where
    there are two), and cuSPARSE's best algorithm (the same code in A and
    B: how far the machine moved between runs);
  - B against cuSPARSE, and A against cuSPARSE: issue #4's figures as chains.
Usage: python3 compare.py  (from this folder)"""
import csv, gzip, math, collections

def load(path):
    with gzip.open(path, 'rt') as f:
        return {(r['matrix'], int(r['n'])): r for r in csv.DictReader(f)}

def best(runs):
    """(matrix, n) -> (loom_us, cusparse_us, auto_us): the lowest over runs"""
    out = {}
    for run in runs:
        for k, r in run.items():
            v = (float(r['loom_us']), float(r['cusparse_us']), float(r['auto_us']))
            out[k] = tuple(min(a, b) for a, b in zip(out[k], v)) if k in out else v
    return out

def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float('nan')

A, B = {}, {}
for call, rounds in (('c2', 2), ('c3', 1), ('c4', 1)):
    A.update(best([load('%s/A%d_summary.csv.gz' % (call, r)) for r in range(1, rounds + 1)]))
    B.update(best([load('%s/B%d_summary.csv.gz' % (call, r)) for r in range(1, rounds + 1)]))
keys = sorted(set(A) & set(B))
print('%d cases (matrix, N), f32, as chains of 20 calls (CUDA graphs)' % len(keys))

def table(title, sel):
    ks = [k for k in keys if sel(k)]
    pdl = [A[k][0] / B[k][0] for k in ks]
    cs = [A[k][1] / B[k][1] for k in ks]
    vb = [B[k][1] / B[k][0] for k in ks]
    va = [A[k][1] / A[k][0] for k in ks]
    au = [B[k][1] / B[k][2] for k in ks if B[k][2] > 0]
    print('%-22s %4d | loom A/B %.3f (faster %3d, min %.3f, max %.3f) | cuSPARSE A/B %.3f | '
          'vs cuSPARSE: A %.3f B %.3f (auto %.3f), lowest B %.3f' %
          (title, len(ks), gm(pdl), sum(p > 1 for p in pdl), min(pdl), max(pdl), gm(cs), gm(va), gm(vb),
           gm(au), min(vb)))

table('all', lambda k: True)
table('N <= 4', lambda k: k[1] <= 4)
for n in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512):
    table('N = %d' % n, lambda k, n=n: k[1] == n)
table('loom B under 10 us', lambda k: B[k][0] < 10)
table('loom B 10-100 us', lambda k: 10 <= B[k][0] < 100)
table('loom B over 100 us', lambda k: B[k][0] >= 100)
print('\nlowest B against cuSPARSE:')
for k in sorted(keys, key=lambda k: B[k][1] / B[k][0])[:8]:
    print('  %-48s N=%-3d loom %8.2f us  cuSPARSE %8.2f us  x%.3f  (A: x%.3f)' %
          (k[0], k[1], B[k][0], B[k][1], B[k][1] / B[k][0], A[k][1] / A[k][0]))
print('\nlargest and smallest PDL gains (A / B of loom):')
srt = sorted(keys, key=lambda k: A[k][0] / B[k][0])
for k in srt[:5] + srt[-5:]:
    print('  %-48s N=%-3d A %8.2f us  B %8.2f us  x%.3f' % (k[0], k[1], A[k][0], B[k][0], A[k][0] / B[k][0]))
