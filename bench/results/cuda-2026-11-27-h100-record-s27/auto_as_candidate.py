import csv,sys,math,collections
rows=list(csv.DictReader(open(sys.argv[1])))
cand={}; auto={}; cus=collections.defaultdict(lambda:1e30)
for r in rows:
    if r['dtype']!='f32': continue
    k=(r['matrix'],int(r['n'])); t=float(r['median_us'])
    if t<=0: continue
    if r['impl']=='loom':
        c=r['config']
        if c.startswith('auto='): auto[k]=(c[5:],t)
        elif not c.startswith(('rules=','tune=')) and c!='loom_csr_features': cand[(k,c)]=t
    elif r['impl']=='cusparse': cus[k]=min(cus[k],t)
by=collections.defaultdict(list); byr=collections.defaultdict(list); best=collections.defaultdict(list)
for k,(c,t) in auto.items():
    tc=cand.get((k,c),t)
    by[k[1]].append(math.log(cus[k]/tc)); byr[k[1]].append(math.log(cus[k]/t))
    b=min(v for (kk,cc),v in cand.items() if kk==k)
    best[k[1]].append(math.log(tc/b))
g=lambda v: math.exp(sum(v)/len(v))
print('N  auto(as timed)  auto(its design timed as a candidate)  best-candidate/auto-choice')
for n in sorted(by): print(n, '%.3f %.3f %.3f'%(g(byr[n]),g(by[n]),1/g(best[n])))
A=[x for v in by.values() for x in v]; R=[x for v in byr.values() for x in v]; S=[x for n,v in by.items() if n<=4 for x in v]
print('all: as timed %.3f, as candidate %.3f; N<=4 as candidate %.3f'%(g(R),g(A),g(S)))
print('oracle fraction (all): %.3f'%(1/g([x for v in best.values() for x in v])))
