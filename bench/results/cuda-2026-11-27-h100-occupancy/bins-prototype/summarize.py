import csv,sys,collections,math
rows=list(csv.reader(open(sys.argv[1])))
d=collections.defaultdict(dict); shape={}
for r in rows[1:]:
    if r[0]=='MISMATCH': print('MISMATCH',r); continue
    if r[2]=='shape': shape[r[0]]=r[5]; continue
    if r[2]=='empty-kernel': print('empty kernel',r[3]); continue
    d[(r[0].replace('.bin',''),int(r[1]))][r[2]]=(float(r[3]),r[4])
geo=collections.defaultdict(list)
for (m,n),v in sorted(d.items(),key=lambda x:(x[0][1],x[0][0])):
    cs=min(t for k,(t,_) in v.items() if k.startswith('cs-'))
    plan=v['binned-plan'][0]
    s=' '.join(f"{k.replace('binned-','')}={t:.1f}({nl})" for k,(t,nl) in v.items() if not k.startswith('cs-'))
    for k,(t,_) in v.items():
        if not k.startswith('cs-'): geo[(n,k)].append(plan/t)
    best=min(t for k,(t,_) in v.items() if not k.startswith('cs-'))
    print(f"{m[:22]:22s} N={n:3d} cs={cs:6.1f} plan/cs={cs/plan:.2f} best/cs={cs/best:.2f} | {s}")
for (n,k),l in sorted(geo.items()): print(n,k,'geomean plan/variant %.3f'%math.exp(sum(map(math.log,l))/len(l)))
for k,v in shape.items(): print(k,v)
