"""sort_by_cv.py OLD.csv NEW.csv SWEEP.csv.gz: per matrix, at N >= 8, the
time of the SR designs the short-items sort touches (RB and EB, not
tile-major; geometric mean of new/old, pairs 2x apart or more left out as
slow windows) and of the best design of all, new/old, beside the
matrix's row_cv (from a gpu_bench_sweep.py sweep).  OLD: the record
before the sort (record-s26), NEW: this record."""
import csv, gzip, math, sys, collections
def load(p):
    opener = gzip.open if p.endswith('.gz') else open
    d = {}
    for r in csv.DictReader(opener(p, 'rt')):
        if r['dtype'] == 'f32' and float(r['median_us']) > 0:
            d[(r['matrix'], int(r['n']), r['impl'], r['config'])] = float(r['median_us'])
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
feat = {r['matrix']: float(r['row_cv']) for r in csv.DictReader(gzip.open(sys.argv[3], 'rt'))}
cand = lambda c: not c.startswith(('rules', 'auto', 'tune')) and c != 'loom_csr_features'
sr = collections.defaultdict(list); best = collections.defaultdict(list)
for k, t in a.items():
    if k[1] >= 8 and k in b and k[2] == 'loom' and cand(k[3]) and '-sr' in k[3] and 'tile-major' not in k[3]:
        if 0.5 < b[k] / t < 2:
            sr[k[0]].append(math.log(b[k] / t))
for m, n in {(k[0], k[1]) for k in a if k[1] >= 8}:
    ca = [t for k, t in a.items() if k[0] == m and k[1] == n and k[2] == 'loom' and cand(k[3])]
    cb = [t for k, t in b.items() if k[0] == m and k[1] == n and k[2] == 'loom' and cand(k[3])]
    if ca and cb:
        best[m].append(math.log(min(cb) / min(ca)))
g = lambda v: math.exp(sum(v) / len(v))
print('row_cv  matrix                       SR designs new/old  best design new/old  (N >= 8)')
for cv, m in sorted((feat.get(m, float('nan')), m) for m in sr):
    print('%6.2f  %-28s %.3f               %.3f' % (cv, m[:28], g(sr[m]), g(best[m])))
lo = [x for m in best if feat.get(m, 0) < 1 for x in best[m]]
hi = [x for m in best if feat.get(m, 0) >= 1 for x in best[m]]
print('best design new/old, geometric mean over (matrix, N >= 8): row_cv < 1 %.3f (%d), >= 1 %.3f (%d)'
      % (g(lo), len(lo), g(hi), len(hi)))
