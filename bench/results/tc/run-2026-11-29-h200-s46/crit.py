# Issue #5's cuBLAS criterion (N = 256, sparsity 0.95-0.98: the plan's pick
# faster than cuBLAS fp16) for the new kernel and for main (baseline) from one
# tc_bench CSV of the same run.  Usage: python3 crit.py FULL256.csv.gz
import csv, gzip, sys
rows = list(csv.DictReader(gzip.open(sys.argv[1], 'rt')))
def pick(x, pre):
    f = x['auto_form']
    if f == 'tiles':
        return float(x['tc_f16_tiles_us'])
    return float(x[pre + ('k16' if 'k16' in f else 'k8') + '_us'])
sel = [x for x in rows if float(x['sparsity']) >= 0.95]
new = sum(pick(x, 'tc_f16_') < float(x['cublas_f16_us']) for x in sel)
base = sum(pick(x, 'base_f16_') < float(x['cublas_f16_us']) for x in sel)
print(f'{len(sel)} layers from 0.95: faster than cuBLAS f16: new {new}, main {base}')
for x in sel:
    t, b, c = pick(x, 'tc_f16_'), pick(x, 'base_f16_'), float(x['cublas_f16_us'])
    if (t < c) != (b < c):
        print(f"  flipped: {x['matrix'][:60]} new {t:.2f} main {b:.2f} cuBLAS {c:.2f}")
