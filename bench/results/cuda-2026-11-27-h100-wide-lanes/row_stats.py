import gzip,sys,os,numpy as np
d='/work/shared/data/bench'
for f in sorted(os.listdir(d)):
    if not f.endswith('.mtx.gz'): continue
    with gzip.open(os.path.join(d,f),'rt') as fh:
        hdr=fh.readline().lower(); sym='symmetric' in hdr
        line=fh.readline()
        while line.startswith('%'): line=fh.readline()
        m,k,nz=map(int,line.split()[:3])
        data=np.loadtxt(fh,usecols=(0,1),dtype=np.int64,ndmin=2)
    r=data[:,0]-1; c=data[:,1]-1
    if sym:
        off=r!=c; r=np.concatenate([r,c[off]]); 
    cnt=np.bincount(r,minlength=m)
    print('%-45s m=%7d k=%7d nnz=%8d mean=%7.1f max=%6d rows>64=%6d'%(f[:-7],m,k,cnt.sum(),cnt.mean(),cnt.max(),(cnt>64).sum()))
