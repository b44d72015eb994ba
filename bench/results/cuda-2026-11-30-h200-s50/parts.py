#!/usr/bin/env python3
"""Call 3's table: per input and design, the time of a call in a chain
(the faster of two rounds) with parts of the N = 1 walk left out
(LOOM_DIAG_SKIP).  Usage: parts.py c3"""
import csv, glob, gzip, os, sys

folder = sys.argv[1]
t = {}
for f in glob.glob(os.path.join(folder, '*_[12].csv.gz')):
    tag = os.path.basename(f)[:-9]
    for r in csv.DictReader(gzip.open(f, 'rt')):
        if r['impl'] == 'loom':
            k = (r['matrix'], r['config'], tag)
            t[k] = min(t.get(k, 1e30), float(r['median_us']))
order = ['none', 'fixup', 'swept', 'short', 'long', 'long+short', 'long+short+swept',
         'long+short+swept+fixup']
print('left out:', ', '.join('%d %s' % (i + 1, o) for i, o in enumerate(order)))
print('%-12s %-27s' % ('input', 'design') + ''.join('%7d' % (i + 1) for i in range(len(order))))
for m, c in sorted(set(k[:2] for k in t)):
    print('%-12s %-27s' % (m[:12], c[:27]) +
          ''.join('%7.2f' % t[(m, c, o)] if (m, c, o) in t else '%7s' % '-' for o in order))
