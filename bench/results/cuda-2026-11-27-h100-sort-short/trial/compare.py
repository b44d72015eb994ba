import csv,gzip,math,collections,sys
def load(p):
    d={}
    for r in csv.DictReader(gzip.open(p, 'rt')):
        if r['impl']=='loom': d[(r['matrix'],int(r['n']),r['config'])]=float(r['median_us'])
    return d
off=[load('off1.csv.gz'),load('off2.csv.gz')]; on=[load('on1.csv.gz'),load('on2.csv.gz')]
keys=set(off[0])&set(off[1])&set(on[0])&set(on[1])
g=lambda v: math.exp(sum(v)/len(v))
by=collections.defaultdict(list); bycfg=collections.defaultdict(list); noise=[]
rows=[]
for k in sorted(keys):
    o=min(off[0][k],off[1][k]); n=min(on[0][k],on[1][k])
    by[k[1]].append(math.log(o/n)); bycfg[k[2]].append(math.log(o/n))
    noise.append(math.log(off[0][k]/off[1][k]))
    rows.append((o/n,k,o,n))
print('off/on (>1: sorted faster), min of two runs each')
for n in sorted(by): print(' N=%-4d %.3f (%d)'%(n,g(by[n]),len(by[n])))
for c in bycfg: print(' %-28s %.3f'%(c,g(bycfg[c])))
print('noise off1/off2: geo %.3f, |median| %.3f'%(g(noise), sorted(abs(x) for x in noise)[len(noise)//2]))
# best design per case
best=collections.defaultdict(lambda:[1e99,1e99])
for k in keys:
    o=min(off[0][k],off[1][k]); n=min(on[0][k],on[1][k]); b=best[(k[0],k[1])]
    b[0]=min(b[0],o); b[1]=min(b[1],n)
bb=collections.defaultdict(list)
for k,(o,n) in best.items(): bb[k[1]].append(math.log(o/n))
print('best of these designs, off/on:',' '.join('N=%d %.3f'%(n,g(v)) for n,v in sorted(bb.items())))
rows.sort()
print('largest losses:'); [print('  %.3f %s %.1f -> %.1f'%(r[0],r[1],r[2],r[3])) for r in rows[:8]]
print('largest gains:'); [print('  %.3f %s %.1f -> %.1f'%(r[0],r[1],r[2],r[3])) for r in rows[-12:]]
for k,(o,n) in sorted(best.items()):
    if k[0].startswith('rmat') or k[0].startswith('soc'): print('  best', k, '%.1f -> %.1f  x%.3f'%(o,n,o/n))
print('best of these designs per matrix at N >= 8, off/on:')
for m in sorted(set(k[0] for k in best)):
    print('  %-28s'%m[:28], ' '.join('N=%d %.3f'%(n,best[(m,n)][0]/best[(m,n)][1]) for n in (8,32,128) if (m,n) in best))
