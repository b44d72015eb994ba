"""sort_effect.py OLD.csv NEW.csv: per N, new/old time (geometric mean) of
the SR designs the short-items sort touches (RB and EB, not tile-major),
of the PR designs (untouched) and of cuSPARSE's best, between two records."""
import csv, sys, math, collections
def load(p):
    d = {}
    for r in csv.DictReader(open(p)):
        if r['dtype'] == 'f32' and float(r['median_us']) > 0:
            d[(r['matrix'], int(r['n']), r['impl'], r['config'])] = float(r['median_us'])
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
g = collections.defaultdict(list)
for k, t in a.items():
    if k not in b or '=' in k[3].split(':')[0] or k[3].startswith(('rules', 'auto', 'tune')):
        continue
    if k[2] == 'cusparse':
        cls = 'cusparse'
    elif '-sr' in k[3] and 'tile-major' not in k[3]:
        cls = 'SR (sorted from N = 8)'
    elif '-pr' in k[3]:
        cls = 'PR (untouched)'
    else:
        continue
    g[(k[1], cls)].append(math.log(b[k] / t))
for n in sorted({k[0] for k in g}):
    print('N=%-4d ' % n + '  '.join('%s %.3f' % (c, math.exp(sum(v) / len(v)))
                                    for (m, c), v in sorted(g.items()) if m == n))
