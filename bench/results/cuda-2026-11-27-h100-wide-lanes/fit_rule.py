import csv,sys,collections,math,gzip,os
rows=list(csv.DictReader(open(sys.argv[1])))
t=collections.defaultdict(dict); mrows={}; nnz={}
for r in rows:
    if r['dtype']!='f32' or r['impl']!='loom': continue
    key=(r['matrix'],int(r['n'])); c=r['config']; mrows[r['matrix']]=int(r['rows']); nnz[r['matrix']]=int(r['nnz'])
    for w in (2,4,8,16,32,64,128,256):
        if c=='rb-rm-pr:lanes=%d,vdl'%w: t[key][w]=float(r['median_us'])
import re
mx={}
for line in open('row_stats.txt'):
    m=re.match(r'(\S+)\s+m=\s*(\d+).*mean=\s*([\d.]+)\s+max=\s*(\d+)',line)
    if m: mx[m.group(1)]=(int(m.group(2)),float(m.group(3)),int(m.group(4)))
def rule(name,C,R,Wmax=256):
    m,mean,mxr=mx[name]
    w=2
    while w<32 and w<mean: w*=2
    if w==32 or mxr>=R:
        if mxr>=R:
            W=32
            while W*2<=Wmax and m*W*2<=C: W*=2
            return max(w,W)
    return w
res=[]
for C in (2**15,2**16,2**17,3*2**16,2**18):
  for R in (64,96,128,192,256,512):
    logs=[];logs32=[]
    for key in t:
        if key[1]>16 or key[0] not in mx: continue
        b=min(t[key].values())
        w=rule(key[0],C,R)
        w0=rule(key[0],0,10**9)
        logs.append(math.log(t[key][w]/b)); logs32.append(math.log(t[key][w0]/b))
    res.append((math.exp(sum(logs)/len(logs)),C,R,math.exp(sum(logs32)/len(logs32))))
for r in sorted(res)[:12]: print('loss %.4f C=%d R=%d   (sub-warp rule alone %.4f)'%r)
print('--- base variants, with C=2^17 R=64')
def rule2(name,f,lo,C=2**17,R=64):
    m,mean,mxr=mx[name]
    w=lo
    while w<32 and w<mean*f: w*=2
    if mxr>=R:
        W=32
        while W*2<=256 and m*W*2<=C: W*=2
        return max(w,W)
    return w
for f in (0.5,1,2,4):
  for lo in (2,4,8):
    logs=[]
    for key in t:
        if key[1]>16 or key[0] not in mx: continue
        b=min(t[key].values()); w=rule2(key[0],f,lo)
        logs.append(math.log(t[key][w]/b))
    print('f=%.1f lo=%d loss %.4f'%(f,lo,math.exp(sum(logs)/len(logs))))
