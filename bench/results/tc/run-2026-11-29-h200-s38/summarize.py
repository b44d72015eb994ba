# summarize.py [CALL_DIR] - from a tc_bench CSV with baseline columns: the
# new rows-form kernels over the baseline's (same process) per layer shape
# at one N, and the layers where cuBLAS f16 beats the plan's pick.
# Run with Debian's python3 (no numpy needed):  python3 summarize.py call1 256
import csv, collections, gzip, math, sys
d = sys.argv[1] if len(sys.argv) > 1 else 'call1'
N = sys.argv[2] if len(sys.argv) > 2 else '256'
rows = list(csv.DictReader(gzip.open(d + '/tc_bench.csv.gz', 'rt')))
gm = lambda v: math.exp(sum(math.log(x) for x in v) / len(v))
def auto_t(r):
    f = r['auto_form']
    col = 'tc_f16_tiles_us' if f.startswith('tiles') else 'tc_f16_k16_us' if 'k16' in f else 'tc_f16_k8_us'
    return float(r[col])
g = collections.defaultdict(list)
for r in rows:
    if r['n'] == N and r['base_f16_k16_us'] != 'nan':
        g[(float(r['sparsity']), int(r['m']), int(r['k']))].append(r)
print(f'N = {N}: baseline time / new time (geomean over the layers of a shape), rows form')
print('sparsity  M x K          layers  k16    k8     new k16 us  cuBLAS us')
for key in sorted(g):
    v = g[key]
    k16 = gm([float(r['base_f16_k16_us']) / float(r['tc_f16_k16_us']) for r in v])
    k8 = gm([float(r['base_f16_k8_us']) / float(r['tc_f16_k8_us']) for r in v])
    t = sum(float(r['tc_f16_k16_us']) for r in v) / len(v)
    c = sum(float(r['cublas_f16_us']) for r in v) / len(v)
    print(f'{key[0]:.2f}      {key[1]:>5} x {key[2]:<5}  {len(v):>4}  {k16:5.3f}  {k8:5.3f}  {t:9.1f}  {c:9.1f}')
lose = collections.defaultdict(list)
for r in rows:
    if r['n'] == N and float(r['sparsity']) >= 0.95 and auto_t(r) >= float(r['cublas_f16_us']):
        lose[(float(r['sparsity']), int(r['m']), int(r['k']))].append((auto_t(r), float(r['cublas_f16_us'])))
print(f'\nN = {N}, sparsity >= 0.95: layers where cuBLAS f16 is at least as fast as auto ({sum(map(len, lose.values()))})')
for k, v in sorted(lose.items()):
    print(f'{k[0]:.2f}  {k[1]:>5} x {k[2]:<5} {len(v):>3}  loom {sum(x[0] for x in v)/len(v):6.1f} us  cuBLAS {sum(x[1] for x in v)/len(v):6.1f} us')
