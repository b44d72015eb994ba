import csv,sys,math,collections
def byn(p):
    b=collections.defaultdict(list); a=collections.defaultdict(list); low=[]
    for r in csv.DictReader(open(p)):
        if r['dtype']!='f32': continue
        n=int(r['n']); c=float(r['cusparse_us']); l=float(r['loom_us']); au=float(r['auto_us'])
        b[n].append(math.log(c/l)); a[n].append(math.log(c/au))
        if c/l<0.8: low.append((round(c/l,3),r['matrix'],n,r['loom_config'],r['cusparse_alg']))
    return b,a,low
g=lambda v: math.exp(sum(v)/len(v))
for p in sys.argv[1:]:
    b,a,low=byn(p)
    print(p)
    print(' N     best   auto  count')
    for n in sorted(b): print(' %-4d %.3f %.3f %d'%(n,g(b[n]),g(a[n]),len(b[n])))
    allb=[x for v in b.values() for x in v]; alla=[x for v in a.values() for x in v]
    sb=[x for n,v in b.items() if n<=4 for x in v]; sa=[x for n,v in a.items() if n<=4 for x in v]
    print(' all %.3f %.3f  N<=4 %.3f %.3f'%(g(allb),g(alla),g(sb),g(sa)))
    print(' below 0.8:',sorted(low))
