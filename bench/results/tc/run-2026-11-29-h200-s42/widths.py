"""Session 42 call 1: the resident kernel in strips of 48/32/16 columns for
K > 1613, against main's gather kernel (tc_bench's baseline, same process)
and the other forms.  Medians per (shape, sparsity, N), in us; rows form
k16 (the rows form's depth on these layers).  Run: python3 widths.py"""
import csv, gzip, statistics, collections, sys, os
here = os.path.dirname(os.path.abspath(__file__))
runs = ['tc/tc_bench', 'w48', 'w32', 'w16', 'gather', 'rule2']
data = {}
for r in runs:
    with gzip.open(os.path.join(here, 'c1', r + '.csv.gz'), 'rt') as f:
        for x in csv.DictReader(f):
            key = (x['matrix'], int(x['n']))
            data.setdefault(key, {})[r] = x
groups = collections.defaultdict(list)
for (mat, n), d in data.items():
    x = d['tc/tc_bench']
    groups[(int(x['m']), int(x['k']), x['sparsity'], n)].append(d)
def med(v): return statistics.median(v)
def k16(x): return float(x['tc_f16_k16_us'])
print('shape             sp    N  cnt | base(gather) rule rule2 | w48  w32  w16 gatherF | tiles cuBLAS | bits')
for key in sorted(groups):
    ds = groups[key]
    m, k, sp, n = key
    row = [med([float(d['tc/tc_bench']['base_f16_k16_us']) for d in ds])]
    row += [med([k16(d[r]) for d in ds]) for r in ['tc/tc_bench', 'rule2', 'w48', 'w32', 'w16', 'gather']]
    row += [med([float(d['tc/tc_bench']['tc_f16_tiles_us']) for d in ds]),
            med([float(d['tc/tc_bench']['cublas_f16_us']) for d in ds])]
    bits = sum(int(d[r]['base_bits_differ']) for d in ds for r in runs)
    print('%4d x %4d %5s %4d %3d | %6.1f %6.1f %6.1f | %5.1f %5.1f %5.1f %5.1f | %5.1f %5.1f | %d' %
          ((m, k, sp, n, len(ds)) + tuple(row) + (bits,)))
