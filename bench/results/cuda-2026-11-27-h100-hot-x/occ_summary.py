#!/usr/bin/python3
"""Per (matrix, dtype, N): the best EB + SR time of each LOOM_CUDA_NARROW_OCC
value over its runs (call 3's times.txt), and its ratio to k = 0."""
import sys, collections, math
best = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    run, name, dtype, n, t = line.split()
    k = int(run.split('occ')[1].split('.')[0])
    key = (name, dtype, n)
    best[key][k] = min(best[key].get(k, 1e30), float(t))
ks = sorted({k for v in best.values() for k in v})
print('%-28s %-4s %-4s %9s ' % ('matrix', 'type', 'N', 'k=0 us') + ' '.join('k=%d' % k for k in ks if k))
geo = collections.defaultdict(list)
for key in sorted(best):
    b = best[key]
    print('%-28s %-4s %-4s %9.2f ' % (key + (b[0],)) + ' '.join('%4.2f' % (b[0] / b[k]) for k in ks if k))
    for k in ks:
        if k:
            geo[(key[1], key[2], k)].append(math.log(b[0] / b[k]))
print('\ngeometric mean of k=0 time / k time')
for g in sorted(geo):
    print('%s %s k=%d: %.3f over %d' % (g[0], g[1], g[2], math.exp(sum(geo[g]) / len(geo[g])), len(geo[g])))
