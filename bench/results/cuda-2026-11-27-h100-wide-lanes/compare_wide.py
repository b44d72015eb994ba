import csv,sys,math,collections
rows=list(csv.DictReader(open(sys.argv[1])))
best_old=collections.defaultdict(lambda:1e99); best_new=collections.defaultdict(lambda:1e99); cus=collections.defaultdict(lambda:1e99)
cfg_new={}
wide=lambda c: any('lanes=%d,'%w in c+',' or c.endswith('lanes=%d'%w) for w in (64,128,256))
for r in rows:
    if r['dtype']!='f32': continue
    key=(r['matrix'],int(r['n']))
    t=float(r['median_us'])
    if r['impl']=='loom':
        c=r['config']
        if c.startswith(('rules','auto','tune','model')) or '=' in c and c.split('=')[0] in ('rules','auto','tune'): continue
        if wide(c): 
            if t<best_new[key]: best_new[key]=t; cfg_new[key]=c
        else:
            best_old[key]=min(best_old[key],t)
    elif r['impl']=='cusparse':
        cus[key]=min(cus[key],t)
byn=collections.defaultdict(list); byn_sp_old=collections.defaultdict(list); byn_sp_new=collections.defaultdict(list)
wins=[]
for key in best_old:
    o=best_old[key]; nw=min(o,best_new[key])
    byn[key[1]].append(math.log(o/nw))
    if key in cus:
        byn_sp_old[key[1]].append(math.log(cus[key]/o)); byn_sp_new[key[1]].append(math.log(cus[key]/nw))
    if best_new[key]<o: wins.append((o/best_new[key],key,cfg_new[key],o,best_new[key],cus.get(key)))
for n in sorted(byn):
    g=lambda v: math.exp(sum(v)/len(v))
    print('N=%3d gain %.4f  vs cuSPARSE old %.3f new %.3f (%d cases)'%(n,g(byn[n]),g(byn_sp_old[n]),g(byn_sp_new[n]),len(byn[n])))
allo=[x for n in byn_sp_old for x in byn_sp_old[n]]; alln=[x for n in byn_sp_new for x in byn_sp_new[n]]
print('all: old %.3f new %.3f'%(math.exp(sum(allo)/len(allo)),math.exp(sum(alln)/len(alln))))
s4o=[x for n in byn_sp_old if n<=4 for x in byn_sp_old[n]]; s4n=[x for n in byn_sp_new if n<=4 for x in byn_sp_new[n]]
print('N<=4: old %.3f new %.3f'%(math.exp(sum(s4o)/len(s4o)),math.exp(sum(s4n)/len(s4n))))
for w in sorted(wins,reverse=True): print('  %.3f %-42s N=%-3d %-26s old %.2f new %.2f cus %s'%(w[0],w[1][0],w[1][1],w[2],w[3],w[4],w[5]))
