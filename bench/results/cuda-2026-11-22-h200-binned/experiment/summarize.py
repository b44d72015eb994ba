import re,sys,math,collections
txt=open(sys.argv[1]).read()
recs=re.split(r'(?=\b[\w.-]+\.bin\s+N=)',txt)
rows={}
for r in recs:
    m=re.match(r'([\w.-]+)\.bin\s+N=\s*(\d+) k0\s+([\d.]+)(.*)',r,re.S)
    if not m: continue
    items={'k0':float(m.group(3))}
    for p in m.group(4).split('|')[1:]:
        mm=re.match(r'\s*(.*?)\s+([\d.]+)\s*$',p.strip())
        if mm:
            k=mm.group(1); k=re.sub(r'\[L(\d+),\d+\]',r'[L\1]',k)
            if k.startswith('cusparse'): k='cusparse'
            items[k]=float(mm.group(2))
    if 'cusparse' in items: rows[(m.group(1),int(m.group(2)))]=items
byN=collections.defaultdict(lambda: collections.defaultdict(list))
for (name,n),it in sorted(rows.items()):
    cs=it['cusparse']
    best=min((v,k) for k,v in it.items() if k!='cusparse')
    print(f"{name[:16]:16} N={n:3} k0/cs {cs/it['k0']:.2f} best {cs/best[0]:.2f} {best[1]}")
    for k,v in it.items():
        if k!='cusparse': byN[n][k].append(cs/v)
for n in sorted(byN):
    print("N",n)
    for k,l in sorted(byN[n].items(), key=lambda x:-len(x[1])):
        print(f"   {k:32} n={len(l):2} geo {math.exp(sum(map(math.log,l))/len(l)):.3f} min {min(l):.2f}")
