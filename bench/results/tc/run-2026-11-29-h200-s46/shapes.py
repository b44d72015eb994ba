# Geometric mean of main/new time per layer shape (m x k) and N, k16 and k8,
# from a tc_bench CSV with a baseline build.  Usage: python3 shapes.py FILE.csv.gz
import csv,gzip,sys,collections,math
f=sys.argv[1]
r=list(csv.DictReader(gzip.open(f,'rt')))
g=collections.defaultdict(list)
for x in r:
    key=(int(x['n']),x['m'],x['k'])
    g[key].append((float(x['base_f16_k16_us'])/float(x['tc_f16_k16_us']), float(x['base_f16_k8_us'])/float(x['tc_f16_k8_us'])))
gm=lambda v:math.exp(sum(map(math.log,v))/len(v))
for n in sorted(set(k[0] for k in g)):
    print('N',n, 'all k16 %.3f k8 %.3f'%(gm([t[0] for k,v in g.items() if k[0]==n for t in v]),gm([t[1] for k,v in g.items() if k[0]==n for t in v])))
    print('   ', ' '.join('%sx%s:%d:%.3f/%.3f'%(k[1],k[2],len(v),gm([t[0] for t in v]),gm([t[1] for t in v])) for k,v in sorted(g.items(),key=lambda t:-len(t[1])) if k[0]==n))
