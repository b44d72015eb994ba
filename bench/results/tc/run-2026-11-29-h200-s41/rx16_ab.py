# rx16_ab.py CALLDIR [N ...] - per layer shape and sparsity: the rows form
# (faster of k16 and k8) of the baseline build (main, two 8-warp resident
# blocks) over the trial build, geometric mean; with cuBLAS f16 beside.
# Lists the groups that moved by more than 4% and every group of 14+ layers.
import collections, csv, gzip, math, os, sys
d = sys.argv[1]
ns = [int(a) for a in sys.argv[2:]] or None
rows = list(csv.DictReader(gzip.open(os.path.join(d, 'tc_bench.csv.gz'), 'rt')))
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
grp = collections.defaultdict(list)
for r in rows:
    new = min(float(r['tc_f16_k16_us']), float(r['tc_f16_k8_us']))
    base = min(float(r['base_f16_k16_us']), float(r['base_f16_k8_us']))
    grp[(int(r['n']), r['m'] + ' x ' + r['k'], r['sparsity'])].append((base / new, base, new, float(r['cublas_f16_us'])))
for N in sorted({k[0] for k in grp}):
    if ns and N not in ns:
        continue
    print('N =', N, '| layer | sparsity | layers | baseline / trial | baseline us | trial us | cuBLAS f16 us')
    for (n, sh, sp), v in sorted(grp.items()):
        if n != N:
            continue
        gm = g([x[0] for x in v])
        if abs(gm - 1) > 0.04 or len(v) >= 14:
            print(f'  {sh:11s} {sp} {len(v):3d}  {gm:.3f}  {g([x[1] for x in v]):7.1f} {g([x[2] for x in v]):7.1f} {g([x[3] for x in v]):6.1f}')
