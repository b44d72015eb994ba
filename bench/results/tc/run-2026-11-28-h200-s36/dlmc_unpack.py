# unpack.py NPZ DIR - the DLMC .smtx files packed by pack.py, written back
# uncompressed (row offsets and column indices as in the original text)
import os, sys, numpy as np
z = np.load(sys.argv[1]); out = sys.argv[2]
for k in z.files:
    kind, rel = k.split(':', 1)
    if kind != 'hdr': continue
    lens = z['len:' + rel].astype(np.int64); d = z['col:' + rel].astype(np.int64)
    ro = np.concatenate(([0], np.cumsum(lens)))
    c = np.cumsum(d)
    before = np.concatenate(([0], c))[ro[:-1]]          # running sum before each row
    ci = c - np.repeat(before, lens)
    p = os.path.join(out, rel[:-3]); os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'w') as f:
        f.write(z[k].tobytes().decode()); f.write(' '.join(map(str, ro)) + ' \n'); f.write(' '.join(map(str, ci)) + ' \n')
