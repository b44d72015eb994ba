import csv,sys,collections,math
rows=list(csv.DictReader(open(sys.argv[1])))
cand={}; sel=[]
for r in rows:
    if r['dtype']!='f32' or r['impl']!='loom': continue
    c=r['config']; k=(r['matrix'],int(r['n']))
    if c.startswith(('rules=','auto=','tune=')):
        sel.append((k,c.split('=',1)[1],float(r['median_us']),c.split('=')[0]))
    else: cand[(k,c)]=float(r['median_us'])
rat=[]
for k,c,t,w in sel:
    if (k,c) in cand:
        x=cand[(k,c)]/t; rat.append((x,k,c,w,t,cand[(k,c)]))
rat.sort()
print(len(rat),'pairs; candidate/selector time: median %.3f'%rat[len(rat)//2][0])
print('>1.3:',sum(1 for r in rat if r[0]>1.3),' <0.77:',sum(1 for r in rat if r[0]<0.77))
for r in rat[-12:]: print('  %.2f %s N=%d %s (%s %.1f vs cand %.1f)'%(r[0],r[1][0],r[1][1],r[2],r[3],r[4],r[5]))
for r in rat[:5]: print('  %.2f %s N=%d %s (%s %.1f vs cand %.1f)'%(r[0],r[1][0],r[1][1],r[2],r[3],r[4],r[5]))
