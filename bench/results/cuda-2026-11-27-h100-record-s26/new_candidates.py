import csv,sys,math,collections
rows=list(csv.DictReader(open(sys.argv[1])))
def kind(c):
    if 'tile-major' in c: return 'tm'
    for w in (64,128,256):
        if c.endswith('lanes=%d,vdl'%w): return 'wide'
    return 'old'
best=collections.defaultdict(lambda: collections.defaultdict(lambda:1e99)); cus=collections.defaultdict(lambda:1e99); auto={}
for r in rows:
    if r['dtype']!='f32': continue
    key=(r['matrix'],int(r['n'])); c=r['config']; t=float(r['median_us'])
    if r['impl']=='loom':
        if c.startswith(('rules','auto','tune')):
            if c.startswith('auto'): auto[key]=t
            continue
        k=kind(c); best[key][k]=min(best[key][k],t)
    elif r['impl']=='cusparse': cus[key]=min(cus[key],t)
g=lambda v: math.exp(sum(v)/len(v)) if v else float('nan')
ns=sorted(set(k[1] for k in best))
print('N     old/cus  +wide/cus  +tm/cus  all/cus  auto/cus | all/old  wide-gain  tm-gain')
tot=collections.defaultdict(list)
for n in ns:
    ks=[k for k in best if k[1]==n and k in cus]
    o=[math.log(cus[k]/best[k]['old']) for k in ks]
    w=[math.log(cus[k]/min(best[k]['old'],best[k]['wide'])) for k in ks]
    t=[math.log(cus[k]/min(best[k]['old'],best[k]['tm'])) for k in ks]
    a=[math.log(cus[k]/min(best[k].values())) for k in ks]
    au=[math.log(cus[k]/auto[k]) for k in ks if k in auto]
    for name,v in (('old',o),('wide',w),('tm',t),('all',a),('auto',au)): tot[name]+=v; 
    for name,v in (('old',o),('wide',w),('tm',t),('all',a),('auto',au)):
        if n<=4: tot[name+'4']+=v
    print('%-5d %.3f    %.3f      %.3f    %.3f    %.3f    | %.3f    %.3f      %.3f'%(n,g(o),g(w),g(t),g(a),g(au),g(a)/g(o),g(w)/g(o),g(t)/g(o)))
print('all   %.3f    %.3f      %.3f    %.3f    %.3f'%(g(tot['old']),g(tot['wide']),g(tot['tm']),g(tot['all']),g(tot['auto'])))
print('N<=4  %.3f    %.3f      %.3f    %.3f    %.3f'%(g(tot['old4']),g(tot['wide4']),g(tot['tm4']),g(tot['all4']),g(tot['auto4'])))
if len(sys.argv)>2:
    print('tile-major wins > 1.03:')
    for k in sorted(best, key=lambda k:(k[1],k[0])):
        if best[k]['tm']<best[k]['old']/1.03: print('  %-42s N=%-4d old %.2f tm %.2f  x%.3f  (cus %.2f)'%(k[0],k[1],best[k]['old'],best[k]['tm'],best[k]['old']/best[k]['tm'],cus[k]))
