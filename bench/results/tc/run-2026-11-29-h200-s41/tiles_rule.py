# tiles_rule.py CALLDIR - where K fits the resident strips (K <= the bound
# tc_bench printed), N >= 256: the rows form (faster of k16 and k8) over the
# tiles form per layer shape, and the geometric mean of best / auto for the
# rules' work thresholds (select_tc.h) over all layers at N >= 256.
import collections, csv, gzip, math, os, re, sys
d = sys.argv[1]
head = gzip.open(os.path.join(d, 'tc_bench.txt.gz'), 'rt').readline()
bound = int(re.search(r'hold K <= (\d+)', head).group(1))
rs = []
for r in csv.DictReader(gzip.open(os.path.join(d, 'tc_bench.csv.gz'), 'rt')):
    m, k, nnz, n = int(r['m']), int(r['k']), int(r['nnz']), int(r['n'])
    if n < 256:
        continue
    k16, k8, tiles = float(r['tc_f16_k16_us']), float(r['tc_f16_k8_us']), float(r['tc_f16_tiles_us'])
    rows = k8 if nnz / m < 8 else k16   # the rules' depth (select_tc.h loom__tc_rows_k)
    rs.append(dict(shape=(m, k, r['sparsity'], n), rows=rows, tiles=tiles, best=min(k16, k8, tiles),
                   work=nnz * n, dens=nnz / (m * k), m=m, k=k, n=n))
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
print(f'resident bound K <= {bound}; shapes with K within it where the tiles form is faster, or picked by 1.6e7:')
grp = collections.defaultdict(list)
for x in rs:
    grp[x['shape']].append(x)
for s, v in sorted(grp.items()):
    if s[1] <= bound and (g([x['rows'] / x['tiles'] for x in v]) > 1 or max(x['work'] for x in v) >= 1.6e7):
        print(f'  {s[0]} x {s[1]} sp {s[2]} N {s[3]}: {len(v)} layers, rows / tiles {g([x["rows"] / x["tiles"] for x in v]):.2f}')
for thr in (1.6e7, 1e8, 2e8):
    auto = []
    for x in rs:
        minw = thr if x['k'] <= bound else 8e6
        tiles = x['m'] <= 8192 and x['dens'] >= 0.04 and x['work'] >= minw
        auto.append(x['best'] / (x['tiles'] if tiles else x['rows']))
    print(f'short-K work threshold {thr:.1e}: best / auto {g(auto):.4f} over {len(auto)} (layer, N)')
