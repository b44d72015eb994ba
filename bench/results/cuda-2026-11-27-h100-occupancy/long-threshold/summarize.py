import csv,collections,math,sys
d=collections.defaultdict(lambda: collections.defaultdict(list))
cs={}
T=[int(x) for x in sys.argv[1].split(',')]
for t in T:
    for r in (1,2):
        for row in csv.DictReader(open(f't{t}_r{r}.csv')):
            k=(row['matrix'][:16],int(row['n']))
            if row['impl']=='loom': d[(k,row['config'])][t].append(float(row['median_us']))
            elif row['impl']=='cusparse': cs[k]=min(cs.get(k,1e9),float(row['median_us']))
best=collections.defaultdict(dict); bcfg=collections.defaultdict(dict)
for (k,cfg),v in d.items():
    for t,l in v.items():
        if min(l)<best[k].get(t,1e9): best[k][t]=min(l); bcfg[k][t]=cfg
geo=collections.defaultdict(list); geocs=collections.defaultdict(list)
verbose=len(sys.argv)>2
for k in sorted(best,key=lambda x:(x[1],x[0])):
    b=best[k]; base=b[T[0]]
    if verbose or abs(base/b[T[1]]-1)>0.05: print('%-16s N=%3d cs=%7.1f '%(k[0],k[1],cs[k])+' '.join('t%s=%.1f(%.2f,%s)'%(t,b[t],base/b[t],bcfg[k][t][:16]) for t in T))
    for t in b: geo[(k[1],t)].append(base/b[t]); geocs[(k[1],t)].append(cs[k]/b[t])
for (n,t),l in sorted(geo.items()): print(n,t,'best-vs-t0 %.3f'%math.exp(sum(map(math.log,l))/len(l)),'vs cusparse %.3f'%math.exp(sum(map(math.log,geocs[(n,t)]))/len(l)),len(l))
