#!/usr/bin/python3
"""compact.py CALLDIR BASE VARIANT... - base time over each variant's, per
input (best EB + SR chunk on each side, fastest over the rounds), from
bench/gpu_bench_ab.py on the call's gzipped gpu_bench CSVs."""
import gzip, os, subprocess, sys, tempfile

d, base, variants = sys.argv[1], sys.argv[2], sys.argv[3:]
tmp = tempfile.mkdtemp()
for f in os.listdir(d):
    if f.endswith('.csv.gz') and 'summary' not in f:
        open(os.path.join(tmp, f[:-3]), 'wb').write(gzip.open(os.path.join(d, f)).read())
ab = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../gpu_bench_ab.py')
rounds = lambda v: sorted(os.path.join(tmp, f) for f in os.listdir(tmp) if f.startswith(v + '_'))
rows, gm = {}, {}
for v in variants:
    out = subprocess.run(['/usr/bin/python3', ab, '--a', *rounds(base), '--b', *rounds(v)],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] in ('f32', 'f64'):
            rows.setdefault((f[0], f[1]), {'base': float(f[3])})[v] = float(f[5])
        elif line.strip().startswith('N ='):
            gm[v] = f[3]
print('%-22s %8s ' % ('input', 'base us') + ' '.join('%6s' % v for v in variants))
for k, r in rows.items():
    print('%-22s %8.1f ' % (k[0] + ' ' + k[1][:17], r['base']) +
          ' '.join('%6.3f' % (r['base'] / r[v]) for v in variants))
print('%-22s %8s ' % ('geomean', '') + ' '.join('%6s' % gm[v] for v in variants))
