import csv,sys,collections,math
rows=[]
for f in sys.argv[1:]:
    for r in csv.reader(open(f)):
        if len(r)==7 and r[5]: rows.append(r)
best=collections.defaultdict(lambda:1e18); design={}; ok=set()
for m,t,n,v,d,ms,o in rows:
    k=(m,t,int(n)); best[(k,v)]=min(best[(k,v)],float(ms)); design[(k,v)]=d
    if o!='bit-exact': ok.add((k,v,o))
print('| matrix | dtype | N | design (auto) | A ms | B ms | A/B |'); print('|---|---|---|---|---|---|---|')
byn=collections.defaultdict(list)
for k in sorted({k for k,v in best}):
    a,b=best[(k,'A')],best[(k,'B')]
    print('| %s | %s | %d | %s | %.3f | %.3f | %.2f |'%(k[0],k[1],k[2],design[(k,'B')],a,b,a/b))
    byn[(k[1],k[2])].append(math.log(a/b))
print()
for k in sorted(byn): print('%s N=%d: A/B geomean %.3f over %d'%(k[0],k[1],math.exp(sum(byn[k])/len(byn[k])),len(byn[k])))
print('not bit-exact:', ok)
