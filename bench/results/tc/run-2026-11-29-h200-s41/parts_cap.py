# parts_cap.py [DIR] - call 1's table: rows-form times under each parts cap
# (DIR: call1, holding the cap*.csv.gz files)
import csv, gzip, math, os, sys, collections
DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'call1')
def load(f):
    d={}
    for r in csv.DictReader(gzip.open(os.path.join(DIR, f + '.gz'), 'rt')):
        key=(r['matrix'],int(r['n']))
        d[key]=dict(rows=min(float(r['tc_f16_k16_us']),float(r['tc_f16_k8_us'])),k16=float(r['tc_f16_k16_us']),
                    tiles=float(r['tc_f16_tiles_us']),cublas=float(r['cublas_f16_us']),csp=float(r['cusparse_f16_us']),
                    sp=r['sparsity'],shape=r['m']+'x'+r['k'])
    return d
runs={n:load(n+'.csv') for n in ['cap8a','cap8b','cap1a','cap1b','cap2a','cap4a']}
base={k:min(runs['cap8a'][k]['rows'],runs['cap8b'][k]['rows']) for k in runs['cap8a']}
def g(xs): return math.exp(sum(map(math.log,xs))/len(xs)) if xs else float('nan')
print("rows form: cap8 (best of two rounds) time / capX time; >1: capX faster")
print("noise: cap8a/cap8b by N:", {N:round(g([runs['cap8a'][k]['rows']/runs['cap8b'][k]['rows'] for k in base if k[1]==N]),3) for N in (128,256,512)})
for cap in ['cap1a','cap1b','cap2a','cap4a']:
    for N in (128,256,512):
        out=[]
        for sp in ('0.90','0.95','0.98'):
            xs=[base[k]/runs[cap][k]['rows'] for k in base if k[1]==N and runs[cap][k]['sp']==sp]
            out.append(f"{sp}:{g(xs):.3f}[{min(xs):.2f}-{max(xs):.2f}]")
        print(cap,N,' '.join(out))
# per shape at N=256
print("\nper shape, N=256, sparsity: cap8 rows us / cap1 / cap2 / cap4 / tiles / cublas")
grp=collections.defaultdict(list)
for k in base:
    if k[1]!=256: continue
    r=runs['cap8a'][k]
    grp[(r['shape'],r['sp'])].append(k)
for (sh,sp),ks in sorted(grp.items()):
    m=lambda f: g([f(k) for k in ks])
    print(f"{sh:10s} {sp} n={len(ks):2d} cap8 {m(lambda k:base[k]):6.1f} cap1 {m(lambda k:min(runs['cap1a'][k]['rows'],runs['cap1b'][k]['rows'])):6.1f} cap2 {m(lambda k:runs['cap2a'][k]['rows']):6.1f} cap4 {m(lambda k:runs['cap4a'][k]['rows']):6.1f} tiles {m(lambda k:runs['cap8a'][k]['tiles']):6.1f} cublas {m(lambda k:runs['cap8a'][k]['cublas']):6.1f}")
