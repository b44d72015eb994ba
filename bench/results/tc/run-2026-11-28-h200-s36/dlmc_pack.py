# dlmc_pack.py SRC DST.npz - the DLMC .smtx.gz files as uint16 row lengths and
# column deltas (xz it after), so that the DLMC set fits the device call's
# 64 MiB tree; dlmc_unpack.py writes them back byte for byte.
import gzip, os, sys, numpy as np, io
src, dst = sys.argv[1], sys.argv[2]
arrs = {}
for root, _, files in os.walk(src):
    for f in files:
        p = os.path.join(root, f); rel = os.path.relpath(p, src)
        if not f.endswith('.smtx.gz'):
            continue
        with gzip.open(p, 'rt') as fh:
            hdr = fh.readline(); ro = np.array(fh.readline().split(), np.int64); ci = np.array(fh.readline().split(), np.int64)
        lens = np.diff(ro); d = ci.copy()
        starts = ro[:-1][lens > 0]
        d[1:] = ci[1:] - ci[:-1]; d[starts] = ci[starts]
        assert lens.max(initial=0) < 65536 and d.min(initial=0) >= 0 and d.max(initial=0) < 65536
        arrs['hdr:' + rel] = np.frombuffer(hdr.encode(), np.uint8)
        arrs['len:' + rel] = lens.astype(np.uint16); arrs['col:' + rel] = d.astype(np.uint16)
np.savez(dst, **arrs)
