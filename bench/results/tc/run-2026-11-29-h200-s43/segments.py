#!/usr/bin/python3
"""segments.py - session 43's tables: long rows in segments against main
(c28c029, tc_bench's baseline in the same process), per call and cut.
Rows form, fp16; ratio = main's time / the segments' time (> 1: faster).
Reads c*/h*/tc_bench.csv.gz (DLMC layers with a row of > 256 non-zeros)
and c*/h*/graphs.csv.gz.  Run from this folder: python3 segments.py"""
import csv, glob, gzip, math, os

CALLS = [('c1', 'one kernel, 2 blocks/SM'), ('c2', 'one kernel, 2 blocks/SM, counts 32 at a time'),
         ('c3', 'one kernel, 3 blocks/SM (spills)'), ('c4', 'own kernel, forked stream (kept)')]


def geo(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float('nan')


def ratios(path, k):
    out = {}
    for r in csv.DictReader(gzip.open(path, 'rt')):
        new, base = float(r['tc_f16_%s_us' % k]), float(r['base_f16_%s_us' % k])
        out.setdefault(int(r['n']), []).append(base / new)
    return out


print('geomean of main/segments over the layers or graphs, rows form k16 | k8')
print('%-4s %-44s %-4s %-22s %-22s' % ('call', 'build', 'cut', 'DLMC (64 layers) N=64/256/512', 'graphs (9) N=64/256'))
for call, what in CALLS:
    for h in sorted(d for d in glob.glob(call + '/h*') if os.path.isdir(d)):
        cut = os.path.basename(h)[1:]
        cells = []
        for name, ns in (('tc_bench.csv.gz', (64, 256, 512)), ('graphs.csv.gz', (64, 256))):
            p = os.path.join(h, name)
            if not os.path.exists(p):
                cells.append('-')
                continue
            r16, r8 = ratios(p, 'k16'), ratios(p, 'k8')
            cells.append(' '.join('%.2f' % geo(r16.get(n, [])) for n in ns) + ' | ' +
                         ' '.join('%.2f' % geo(r8.get(n, [])) for n in ns))
        print('%-4s %-44s %-4s %-30s %s' % (call, what, cut, cells[0], cells[1]))

print('\ncall 4, cut 64 (kept): each graph, us (main/segments)')
rows = list(csv.DictReader(gzip.open('c4/h64/graphs.csv.gz', 'rt')))
for r in rows:
    print('%-20s %7s x %-7s nnz %8s N=%-3s  k16 %8.1f (%4.2f)  k8 %8.1f (%4.2f)' % (
        r['matrix'], r['m'], r['k'], r['nnz'], r['n'], float(r['tc_f16_k16_us']),
        float(r['base_f16_k16_us']) / float(r['tc_f16_k16_us']), float(r['tc_f16_k8_us']),
        float(r['base_f16_k8_us']) / float(r['tc_f16_k8_us'])))

print('\ncall 4, cut 64 (kept): DLMC layers with a row cut at k = 16 (> 1024 non-zeros)')
for r in csv.DictReader(gzip.open('c4/h64/tc_bench.csv.gz', 'rt')):
    if r['matrix'].endswith('decoder_layer_5_ffn_conv2_fully_connected') and r['sparsity'] == '0.90':
        print('%-60s N=%-3s k16 %6.1f us, main %6.1f (%4.2f)' % (r['matrix'], r['n'], float(r['tc_f16_k16_us']),
              float(r['base_f16_k16_us']), float(r['base_f16_k16_us']) / float(r['tc_f16_k16_us'])))
