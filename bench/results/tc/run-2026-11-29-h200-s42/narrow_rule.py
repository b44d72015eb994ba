"""Session 42 call 1: where the 32-column strips beat the gather kernel.
For each layer with 1613 < K <= 2904 and N, the resident rule's two
quantities for strips of 32 columns on 132 multiprocessors (tc_spmm.cu
rx_try: warps of the grid a multiprocessor; gathered bytes over copied
bytes) and the gather kernel's time over the forced 32-column strips' (the
w32 run; rows form k16).  Run: python3 narrow_rule.py"""
import csv, gzip, os, collections
here = os.path.dirname(os.path.abspath(__file__))
def load(r):
    with gzip.open(os.path.join(here, 'c1', r + '.csv.gz'), 'rt') as f:
        return {(x['matrix'], int(x['n'])): x for x in csv.DictReader(f)}
w32, g = load('w32'), load('gather')
SMS, WARPS, W = 132, 16, 32
rows = []
for key, x in w32.items():
    m, k, nnz, n = int(x['m']), int(x['k']), int(x['nnz']), key[1]
    if not 1613 < k <= 2904:
        continue
    strips = (n + W - 1) // W
    chunks = max(1, min(SMS // strips, (m + WARPS - 1) // WARPS))
    blocks = chunks * strips
    gpc = nnz * n / (blocks * k * W)
    wpsm = blocks * WARPS / SMS
    ratio = float(g[key]['tc_f16_k16_us']) / float(x['tc_f16_k16_us'])
    rows.append((gpc, wpsm, ratio, m, k, x['sparsity'], n))
rows.sort()
for r in rows:
    print('gpc %5.2f  warps/SM %5.1f  gather/w32 %5.2f   %4d x %4d %s N=%d' % r)
for thr in (0.5, 0.75, 1.0, 1.25):
    take = [r for r in rows if r[0] >= thr and r[1] >= 12]
    import math
    gm = math.exp(sum(math.log(r[2]) for r in take) / len(take)) if take else 0
    lose = sum(1 for r in take if r[2] < 1)
    left = [r for r in rows if not (r[0] >= thr and r[1] >= 12) and r[2] > 1.05]
    print('threshold %.2f: takes %d, geomean %.3f, %d of them slower; %d left on gather that were >5%% faster' %
          (thr, len(take), gm, lose, len(left)))
