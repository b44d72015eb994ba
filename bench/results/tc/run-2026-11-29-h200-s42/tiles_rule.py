"""Session 42 call 1: the tiles rule for 1613 < K <= 2904, where the rows
form can now hold X in strips of 32 columns.  The rows form's time is the
forced 32-column run's where the resident rule takes the strips (warps of
the grid >= 12 a multiprocessor, gathered/copied >= 0.75), else the gather
kernel's (forced run); the tiles form's is tc_bench's.  For each candidate
density bound of the tiles form (with N >= 256 and nnz*N >= 8e6 as now),
the geometric mean of best/picked over the layers and N = 256, 512.
Run: python3 tiles_rule.py"""
import csv, gzip, os, math
here = os.path.dirname(os.path.abspath(__file__))
def load(r):
    with gzip.open(os.path.join(here, 'c1', r + '.csv.gz'), 'rt') as f:
        return {(x['matrix'], int(x['n'])): x for x in csv.DictReader(f)}
w32, g, tc = load('w32'), load('gather'), load('tc/tc_bench')
SMS, WARPS, W = 132, 16, 32
cases = []
for key, x in w32.items():
    m, k, nnz, n = int(x['m']), int(x['k']), int(x['nnz']), key[1]
    if not 1613 < k <= 2904 or n < 256:
        continue
    strips = (n + W - 1) // W
    chunks = max(1, min(SMS // strips, (m + WARPS - 1) // WARPS))
    blocks = chunks * strips
    resident = blocks * WARPS >= 12 * SMS and nnz * n / (blocks * k * W) >= 0.75
    rows = float(x['tc_f16_k16_us']) if resident else float(g[key]['tc_f16_k16_us'])
    tiles = float(tc[key]['tc_f16_tiles_us'])
    cases.append((nnz / (m * k), nnz * n, rows, tiles, m, k, n))
for bound in (0.04, 0.06, 0.075, 0.09, 1.0):
    s, lost = 0.0, 0
    for d, work, rows, tiles, *_ in cases:
        pick = tiles if (d >= bound and work >= 8e6) else rows
        s += math.log(min(rows, tiles) / pick)
        lost += pick > 1.02 * min(rows, tiles)
    print('tiles from density %.3f: best/picked geomean %.4f over %d cases, %d picks >2%% slower than the best' %
          (bound, math.exp(s / len(cases)), len(cases), lost))
