#!/usr/bin/env python3
"""AVX-512 over AVX2 kernel time (isa_sweep.txt: matrix dtype N design t512 t256),
geometric mean and range per dtype and N, SR and PR designs apart (> 1: AVX2 faster)."""
import collections, math, sys

groups = collections.defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "isa_sweep.txt"):
    m, dt, n, d, a, b = line.split()
    kind = "PR" if "-pr" in d else "SR"
    groups[(dt, int(n), kind)].append(float(a) / float(b))
print("dtype  N  row bytes  designs  avx512/avx2 geomean  min   max")
for (dt, n, kind), r in sorted(groups.items()):
    g = math.exp(sum(map(math.log, r)) / len(r))
    es = 4 if dt == "f32" else 8
    print(f"{dt:5} {n:3} {n*es:6}      {kind} x{len(r):2}      {g:5.2f}            {min(r):.2f}  {max(r):.2f}")
