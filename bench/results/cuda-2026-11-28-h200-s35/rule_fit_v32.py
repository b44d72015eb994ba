#!/usr/bin/python3
"""rule_fit_v32.py - the search behind cuda_plan.c segments_vector32.

Run in call 2's unpacked folder (tar xzf output/call2_v32_trial.tgz; cd c2),
which holds A1_summary.csv (the non-zeros per input):

    /usr/bin/python3 ../rule_fit_v32.py ../call2_ab_main_vs_v32.txt            # the search
    /usr/bin/python3 ../rule_fit_v32.py ../call2_ab_main_vs_v32.txt 12 2e5 0 32 # the cases the rule takes

Each rule (row mean <= mt, nnz >= zt, nnz x N >= wt, N >= nt) takes the
trial's time where it holds and main's elsewhere; printed: geometric mean
of main / chosen over all cases, the lowest, the number taken, the rule.
Rows per input: dims.txt (the .mtx headers); R-MAT as gpu_bench makes it.
"""
import csv,math,os,sys
dims={}
for l in open(os.path.join(os.path.dirname(__file__), 'dims.txt')):
    f=l.split(); dims[f[0]]=int(f[1])
nnz={}
for r in csv.DictReader(open('A1_summary.csv')): nnz[r['matrix'].replace('.mtx','')]=int(r['nnz'])
def rows_of(m):
    if m.startswith('rmat'):
        e=nnz[m]; s=1
        while (1<<s)*12<e: s+=1
        return 1<<s
    return dims[m]
full={k:k for k in nnz}
data=[]
for line in open(sys.argv[1]):
    f=line.split()
    if len(f)>=8 and f[0]=='f32' and f[2].isdigit():
        m=f[1].replace('.mtx','')
        m=m[:-3] if m.endswith('.mt') else m; n=int(f[2]); a=float(f[3]); b=float(f[5])
        k=[x for x in nnz if x.startswith(m)][0]
        data.append((k,n,a,b,nnz[k],nnz[k]/rows_of(k)))
def ev(rule):
    lg=[];lo=1e9;cnt=0
    for k,n,a,b,z,mean in data:
        use=rule(z,n,mean)
        t=b if use else a
        lg.append(math.log(a/t)); cnt+=use
        lo=min(lo,a/t)
    return math.exp(sum(lg)/len(lg)),lo,cnt
for name,rule in [('never',lambda z,n,m:False),('always',lambda z,n,m:True)]:
    print(name,ev(rule))
best=[]
for mt in [4,6,8,10,12,16,24,32,1e9]:
  for zt in [0,1e5,2e5,5e5,1e6]:
    for wt in [0,1e7,3e7,1e8]:
      for nt in [32,64,128]:
        r=lambda z,n,m:m<=mt and z>=zt and z*n>=wt and n>=nt
        g,lo,c=ev(r); best.append((g,lo,c,mt,zt,wt,nt))
best.sort(reverse=True)
for b in best[:15]: print(b)
if len(sys.argv)>2:
  mt,zt,wt,nt=map(float,sys.argv[2:6])
  for k,n,a,b,z,mean in sorted(data,key=lambda d:(d[5],d[1])):
    use= mean<=mt and z>=zt and z*n>=wt and n>=nt
    if use: print(f"{k:40s} {n:4d} mean {mean:7.1f} nnz {z:9d} A/B {a/b:.3f}")
