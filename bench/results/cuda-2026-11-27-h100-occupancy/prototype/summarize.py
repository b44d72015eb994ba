import csv,sys,collections,math
rows=[r for r in csv.DictReader(open(sys.argv[1])) if r['matrix']!='MISMATCH']
d=collections.defaultdict(dict)
for r in rows: d[(r['matrix'],int(r['n']))][r['variant']]=float(r['us'])
byvar=collections.defaultdict(list)
for (m,n),v in sorted(d.items(),key=lambda x:(x[0][1],x[0][0])):
    cs=min(t for k,t in v.items() if k.startswith('cs-'))
    lib=min((t,k) for k,t in v.items() if k.startswith('lib-'))
    var=min((t,k) for k,t in v.items() if not k.startswith('cs-') and not k.startswith('lib-'))
    for k,t in v.items():
        if not k.startswith('cs-'): byvar[(n,k)].append(lib[0]/t)
    print(f"{m[:26]:26s} N={n:3d} cs {cs:7.1f} lib {lib[0]:7.1f} {lib[1]:10s} var {var[0]:7.1f} {var[1]:12s} var/lib {lib[0]/var[0]:.3f} lib/cs {cs/lib[0]:.3f} best/cs {cs/min(lib[0],var[0]):.3f}")
print()
for (n,k),l in sorted(byvar.items()):
    print(n,k,'geomean lib_best/var %.3f'%math.exp(sum(map(math.log,l))/len(l)), len(l))
