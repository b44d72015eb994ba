# Call 5's two runs side by side: the geometric mean of loom's best design
# over cuSPARSE's best algorithm per N, lone calls against GPU time, and
# the cases below 0.95 on GPU time.
# Usage: python3 by_n.py c5/lone_summary.csv.gz c5/gputime_summary.csv.gz
import csv, gzip, math, collections, statistics, sys
L = {(r['matrix'], r['n']): r for r in csv.DictReader(gzip.open(sys.argv[1], 'rt'))}
G = {(r['matrix'], r['n']): r for r in csv.DictReader(gzip.open(sys.argv[2], 'rt'))}
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
by = collections.defaultdict(lambda: ([], []))
for k in L:
    if k in G:
        by[int(k[1])][0].append(float(L[k]['speedup']))
        by[int(k[1])][1].append(float(G[k]['speedup']))
print('N cases lone gpu-time')
for n in sorted(by):
    print('%3d %3d %.3f %.3f' % (n, len(by[n][0]), gm(by[n][0]), gm(by[n][1])))
print('on GPU time below 0.95 (lone in brackets):')
for k, r in sorted(G.items(), key=lambda x: float(x[1]['speedup'])):
    if float(r['speedup']) < 0.95:
        print('  %-40s N=%-3s %.3f (%.3f)  loom %s us, cuSPARSE %s us (%s)' % (
            k[0], k[1], float(r['speedup']), float(L[k]['speedup']), r['loom_us'], r['cusparse_us'],
            r['cusparse_alg']))
small = [k for k in L if k in G and float(G[k]['cusparse_us']) < 20]
print('cases of cuSPARSE under 20 us: %d; lone minus GPU time, median: loom %.2f us, cuSPARSE %.2f us' % (
    len(small), statistics.median(float(L[k]['loom_us']) - float(G[k]['loom_us']) for k in small),
    statistics.median(float(L[k]['cusparse_us']) - float(G[k]['cusparse_us']) for k in small)))
