import struct, array, sys
for fn in sys.argv[1:]:
    f=open(fn,'rb'); m,k,nnz=struct.unpack('qqq',f.read(24))
    ro=array.array('q'); ro.fromfile(f,m+1); ci=array.array('i'); ci.fromfile(f,nnz)
    out=[]
    for R in (4,8,16,32):
        u=0
        for b in range(0,m,R):
            u+=len(set(ci[ro[b]:ro[min(b+R,m)]]))
        out.append(f"R{R} {nnz/u:.2f}")
    print(f"{fn[:40]:40s} m={m} nnz={nnz} avg={nnz/m:.1f}", ' '.join(out))
