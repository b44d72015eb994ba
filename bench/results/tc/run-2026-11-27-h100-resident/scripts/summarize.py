#!/usr/bin/python3
"""Tables of README.md from this folder's CSV files (run from the folder).

explore1/, explore2/: tc_bench --only-tc, fp16, every DLMC layer, with the
rows form's kernel forced (LOOMTC_TUNING build): g* gather, r2* resident
on two blocks a multiprocessor, r* (explore1) resident on one, r3*
(explore2) on three, a* (explore2) the rule as committed.
"""
import csv, gzip, math, collections

gm = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')
def load(f): return {r['matrix']: r for r in csv.DictReader(gzip.open(f, 'rt'))}
def rows(r): return min(float(r['tc_f16_k16_us']), float(r['tc_f16_k8_us']))
def tiles(r): return float(r['tc_f16_tiles_us'])

G = {64: ['explore2/g64'], 128: ['explore1/g128', 'explore2/g128'],
     256: ['explore1/g256_1', 'explore1/g256_2', 'explore2/g256', 'explore2/g256b'],
     512: ['explore1/g512', 'explore2/g512']}
R = {64: ['explore2/r2_64'], 128: ['explore1/r2_128', 'explore2/r2_128'],
     256: ['explore1/r2_256_1', 'explore1/r2_256_2', 'explore2/r2_256'],
     512: ['explore1/r2_512', 'explore2/r2_512']}
data = []
for n in G:
    gs = [load(f + '.csv.gz') for f in G[n]]
    rs = [load(f + '.csv.gz') for f in R[n]]
    for k in gs[0]:
        r = gs[0][k]
        data.append(dict(n=n, m=int(r['m']), K=int(r['k']), nnz=int(r['nnz']), sp=r['sparsity'],
                         g=min(rows(x[k]) for x in gs), r=min(rows(x[k]) for x in rs),
                         t=min(tiles(x[k]) for x in gs + rs)))

SMS = 132
def resident(d, th=0.5):  # tc_spmm.cu rx_try
    if d['K'] > 770: return False
    strips = (d['n'] + 63) // 64
    chunks = min((2 * SMS + strips - 1) // strips, (d['m'] + 7) // 8)
    blocks = chunks * strips
    return d['m'] >= 16896 or (2 * blocks >= 3 * SMS and d['nnz'] * d['n'] / (blocks * d['K'] * 64) >= th)
def tiles_rule(d, short_k_work=1.6e7):  # lib/select_tc.h
    mw = short_k_work if d['K'] <= 768 else 8e6
    return d['n'] >= 256 and d['m'] <= 8192 and d['nnz'] / (d['m'] * d['K']) >= 0.04 and d['nnz'] * d['n'] >= mw

print('Gather over resident (2 blocks/SM), rows form, fastest of the runs per layer, K <= 770:')
agg = collections.defaultdict(list)
for d in data:
    if d['K'] <= 770:
        agg[(d['m'], d['K'], d['sp'])].append(d)
print('| M x K | sparsity | ' + ' | '.join('N = %d' % n for n in (64, 128, 256, 512)) + ' |')
print('|---|---|---|---|---|---|')
for (m, K, sp) in sorted(set((k[0], k[1], k[2]) for k in agg)):
    v = agg[(m, K, sp)]
    cells = []
    for n in (64, 128, 256, 512):
        w = [d for d in v if d['n'] == n]
        cells.append(('%.2f%s' % (gm([d['g'] / d['r'] for d in w]), '*' if resident(w[0]) else '')) if w else '')
    print('| %d x %d (%d) | %s | %s |' % (m, K, len([d for d in v if d['n'] == 256]), sp, ' | '.join(cells)))
print('(* the committed rule takes the resident kernel)')
print()
print('Rows form, geomean gain of the rule over the gather kernel alone, by threshold:')
for th in (0.35, 0.5, 1.0):
    print('  %.2f: ' % th + '  '.join('N=%d %.3f' % (n, gm([d['g'] / (d['r'] if resident(d, th) else d['g'])
                                                       for d in data if d['n'] == n])) for n in (64, 128, 256, 512)))
print('  oracle: ' + '  '.join('N=%d %.3f' % (n, gm([d['g'] / min(d['g'], d['r']) for d in data if d['n'] == n]))
                              for n in (64, 128, 256, 512)))
print()
print('Auto (forms and kernels by the rules) over the previous rules (gather kernel, tiles from 8e6):')
for n in (256, 512):
    D = [d for d in data if d['n'] == n]
    old = [d['t'] if tiles_rule(d, 8e6) else d['g'] for d in D]
    for skw in (8e6, 1.6e7):
        new = [d['t'] if tiles_rule(d, skw) else (d['r'] if resident(d) else d['g']) for d in D]
        print('  N=%d, tiles bound where K <= 768: %.1e: %.3f' % (n, skw, gm([a / b for a, b in zip(old, new)])))
