# Per layer shape and sparsity (N = 256): the geometric mean of each
# method's time as a plain loop of calls and as CUDA graphs (call 4).
# Usage: python3 graph_vs_plain.py c4/plain256.csv.gz c4/graph256.csv.gz
import csv, gzip, collections, math, sys
P = {(r['matrix'], r['n']): r for r in csv.DictReader(gzip.open(sys.argv[1], 'rt'))}
G = {(r['matrix'], r['n']): r for r in csv.DictReader(gzip.open(sys.argv[2], 'rt'))}
col = {'rows-k16': 'tc_f16_k16_us', 'rows-k8': 'tc_f16_k8_us', 'tiles': 'tc_f16_tiles_us'}
auto = lambda r: float(r[col[r['auto_form']]])  # the plan's pick, as tc_bench's "auto"
by = collections.defaultdict(list)
for k, p in P.items():
    g = G.get(k)
    if g:
        by[(int(p['m']), int(p['k']), p['sparsity'])].append(
            (auto(p), auto(g), float(p['cublas_f16_us']), float(g['cublas_f16_us']),
             float(p['cusparse_f16_us']), float(g['cusparse_f16_us'])))
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
print('M x K sparsity layers | loom (auto) plain graph | cuBLAS f16 plain graph | cuSPARSE f16 plain graph')
for k, v in sorted(by.items(), key=lambda x: -len(x[1])):
    print('%5dx%-5d %s %3d | %7.2f %7.2f | %7.2f %7.2f | %7.2f %7.2f'
          % (k[0], k[1], k[2], len(v), *[gm([x[i] for x in v]) for i in range(6)]))
