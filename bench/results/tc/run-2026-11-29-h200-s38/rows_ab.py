# rows_ab.py CALL_DIR - baseline over new for the rows form alone (the
# faster of k16 and k8 on each side), geometric mean by N and sparsity,
# from a tc_bench CSV with baseline columns.  (tc_bench's own "against the
# baseline" summary divides by the best of all forms, tiles included.)
import csv, gzip, math, sys
rows = list(csv.DictReader(gzip.open(sys.argv[1] + '/tc_bench.csv.gz', 'rt')))
gm = lambda v: math.exp(sum(math.log(x) for x in v) / len(v))
print('N     all    0.90   0.95   0.98')
for n in ('64', '128', '256', '512'):
    out = []
    for sp in (None, '0.90', '0.95', '0.98'):
        v = [min(float(r['base_f16_k16_us']), float(r['base_f16_k8_us'])) /
             min(float(r['tc_f16_k16_us']), float(r['tc_f16_k8_us']))
             for r in rows if r['n'] == n and (sp is None or r['sparsity'] == sp) and r['base_f16_k16_us'] != 'nan']
        out.append(gm(v) if v else None)
    if out[0] is not None:
        print(f'{n:<5} ' + '  '.join(f'{x:5.3f}' for x in out))
