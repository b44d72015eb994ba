# Matrix Market (.mtx.gz) -> binary CSR for the ktile prototype:
# int64 m, k, nnz; int64 ro[m+1]; int32 ci[nnz]; float32 val[nnz].
# Symmetric storage is expanded; entries sorted by (row, column).
import gzip, struct, sys, array
src, dst = sys.argv[1], sys.argv[2]
f = gzip.open(src, 'rt')
hdr = f.readline().split()
field, sym = hdr[3], hdr[4]
line = f.readline()
while line.startswith('%'):
    line = f.readline()
m, k, nz = map(int, line.split())
rows = []
for line in f:
    t = line.split()
    if not t: continue
    i, j = int(t[0]) - 1, int(t[1]) - 1
    v = float(t[2]) if field != 'pattern' else 1.0
    rows.append((i, j, v))
    if sym != 'general' and i != j:
        rows.append((j, i, -v if sym == 'skew-symmetric' else v))
rows.sort()
ro = array.array('q', [0] * (m + 1))
for i, _, _ in rows: ro[i + 1] += 1
for i in range(m): ro[i + 1] += ro[i]
ci = array.array('i', [j for _, j, _ in rows])
va = array.array('f', [v for _, _, v in rows])
with open(dst, 'wb') as o:
    o.write(struct.pack('qqq', m, k, len(rows)))
    ro.tofile(o); ci.tofile(o); va.tofile(o)
print(dst, m, k, len(rows))
