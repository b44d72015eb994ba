import csv,sys,collections
rows=list(csv.DictReader(open(sys.argv[1])))
t=collections.defaultdict(dict); best=collections.defaultdict(lambda:1e99); mrows={}
for r in rows:
    if r['dtype']!='f32' or r['impl']!='loom': continue
    key=(r['matrix'],int(r['n'])); c=r['config']; mrows[r['matrix']]=int(r['rows'])
    if c.startswith(('rules','auto','tune','model')): continue
    v=float(r['median_us']); best[key]=min(best[key],v)
    for w in (16,32,64,128,256):
        if c=='rb-rm-pr:lanes=%d,vdl'%w: t[key][w]=v
for key in sorted(t, key=lambda k:(mrows[k[0]],k[0],k[1])):
    if key[1]>16 or mrows[key[0]]>40000: continue
    b=best[key]
    print('%-42s m=%6d N=%-3d best %7.2f  '%(key[0][:42],mrows[key[0]],key[1],b)+' '.join('%d:%.2f'%(w,t[key][w]/b) for w in (16,32,64,128,256) if w in t[key]))
