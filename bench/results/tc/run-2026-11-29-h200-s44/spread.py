#!/usr/bin/env python3
"""spread.py - the tables of this folder's README from the calls' CSVs.

  python3 spread.py [DLMC_DIR]     (default ../../../../../shared/data/dlmc)

Call 3 (plain build of trial_spread.patch against main in one process),
call 3's tuning build with one knob turned each (180 layers with a row past
100 non-zeros), where spreading paid (by the longest row over a warp's mean
load, which needs the DLMC row lengths), a few layers by name, call 4
(trial_segment_tree.patch: graphs, DLMC, the issue's cuBLAS count), call 5
(Nsight Compute's per-multiprocessor cycles) and call 6 (the spread inside
the block, trial_spread_block.patch as it ran then: the layers that run
the resident kernel with a row spread, without, and those that run the
gather kernel, whose code did not change - the measurement's own bias).
"""
import csv, glob, gzip, math, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    with gzip.open(os.path.join(HERE, path), 'rt') as f:
        return {(r['matrix'], int(r['n'])): r for r in csv.DictReader(f)}


def geo(xs):
    xs = list(xs)
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')


def t(r, col):
    return float(r[col])


def best(r, pre):
    return min(t(r, pre + '_f16_k16_us'), t(r, pre + '_f16_k8_us'))


def main():
    dlmc = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '../../../../../shared/data/dlmc')
    print('== call 3, plain build against main (base/new; > 1: new faster), all 452 layers')
    plain = load('c3/all/tc_bench.csv.gz')
    plain.update(load('c3/full256.csv.gz'))
    for n in (64, 128, 256, 512):
        ks = [k for k in plain if k[1] == n]
        print('  N=%-3d k16 %.3f  k8 %.3f  faster of the two %.3f' % (
            n, geo(t(plain[k], 'base_f16_k16_us') / t(plain[k], 'tc_f16_k16_us') for k in ks),
            geo(t(plain[k], 'base_f16_k8_us') / t(plain[k], 'tc_f16_k8_us') for k in ks),
            geo(best(plain[k], 'base') / best(plain[k], 'tc') for k in ks)))

    print('\n== the knobs (tuning build, fp16; base/new k16 on the 180 layers with a row past 100)')
    for call, names in (('c2', ['LOOMTC_RX_SPREAD_GROUPS_0', 'LOOMTC_RX_SNAKE_0', 'LOOMTC_RX_SPREAD_GROUPS_16',
                                'LOOMTC_RX_SPREAD_GROUPS_4', 'LOOMTC_RX_SPREAD_MEAN_3']),
                        ('c3', ['LOOMTC_NONE_1', 'LOOMTC_RX_SPREAD_GROUPS_0', 'LOOMTC_RX_SNAKE_0',
                                'LOOMTC_RX_SPREAD_GROUPS_16', 'LOOMTC_RX_SPREAD_MEAN_3'])):
        for v in names:
            d = load('%s/%s.csv.gz' % (call, v))
            print('  %s %-28s N=256 %.3f  N=512 %.3f' % (call, v.replace('LOOMTC_', '').replace('NONE_1', 'defaults'),
                  *[geo(t(r, 'base_f16_k16_us') / t(r, 'tc_f16_k16_us') for k, r in d.items() if k[1] == n)
                    for n in (256, 512)]))

    lens = {}
    for f in glob.glob(os.path.join(dlmc, '*/*/*/*.smtx.gz')):
        p = f.split(os.sep)
        with gzip.open(f, 'rt') as h:
            h.readline()
            ro = [int(x) for x in h.readline().split()]
        lens[p[-4] + '/' + p[-2] + '/' + p[-1][:-8]] = [b - a for a, b in zip(ro, ro[1:])]
    spread = load('c3/LOOMTC_NONE_1.csv.gz')
    nospread = load('c3/LOOMTC_RX_SPREAD_GROUPS_0.csv.gz')
    if not lens:
        print('\n(no DLMC .smtx.gz under %s: the table by load is skipped)' % dlmc)
    else:
        print('\n== spread (defaults) against none, k16 (no-spread time / spread time), layers with a row spread,')
        print('   by the longest row over a warp\'s mean load (nnz over the grid\'s warps a strip)')
        for n in (256, 512):
            buckets = {}
            for k, r in spread.items():
                if k[1] != n or k[0] not in lens:
                    continue
                L = lens[k[0]]
                m, kk = int(r['m']), int(r['k'])
                mean = sum(L) / m
                if not any(l > 1.5 * mean and (l + 15) // 16 >= 8 for l in L):
                    continue
                w = 64 if kk <= 1613 else 32
                strips = (n + w - 1) // w
                warps = max(1, min(132 // strips, (m + 15) // 16)) * 16
                ratio = max(L) / (sum(L) / warps)
                b = next(x for x in (1, 1.5, 2, 3, 5, 1e9) if ratio < x)
                buckets.setdefault(b, []).append(t(nospread[k], 'tc_f16_k16_us') / t(r, 'tc_f16_k16_us'))
            for b in sorted(buckets):
                print('  N=%d  longest/load < %-4g %3d layers  %.3f' % (n, b if b < 1e9 else float('inf'),
                                                                    len(buckets[b]), geo(buckets[b])))

    print('\n== layers by name, N=256 k16 (us): main, plain spread build, tuning: defaults / no spread; cuBLAS')
    full = load('c3/full256.csv.gz')
    for name in ('transformer/0.95/body_decoder_layer_0_encdec_attention_multihead_attention_output_transform_fully_connected',
                 'transformer/0.95/body_decoder_layer_5_ffn_conv2_fully_connected',
                 'transformer/0.95/body_encoder_layer_3_ffn_conv2_fully_connected',
                 'transformer/0.95/body_encoder_layer_2_ffn_conv1_fully_connected',
                 'rn50/0.95/bottleneck_1_block_group4_2_1'):
        k = (name, 256)
        print('  %-60s %5.1f %5.1f | %5.1f %5.1f | %5.1f' % (name[-60:], t(full[k], 'base_f16_k16_us'),
              t(full[k], 'tc_f16_k16_us'), t(spread[k], 'tc_f16_k16_us'), t(nospread[k], 'tc_f16_k16_us'),
              t(full[k], 'cublas_f16_us')))

    print('\n== call 4 (the segments\' finish in registers) against main, base/new, faster of k16 and k8')
    g = load('c4/graphs.csv.gz')
    for n in (64, 256):
        print('  graphs N=%-3d %.3f  (%s)' % (n, geo(best(r, 'base') / best(r, 'tc') for k, r in g.items() if k[1] == n),
              ', '.join('%s %.2f' % (k[0], best(r, 'base') / best(r, 'tc')) for k, r in sorted(g.items()) if k[1] == n)))
    lg = load('c4/long/tc_bench.csv.gz')
    for n in (64, 256, 512):
        print('  DLMC, 180 layers, N=%-3d %.3f' % (n, geo(best(r, 'base') / best(r, 'tc') for k, r in lg.items() if k[1] == n)))
    f4 = load('c4/full256.csv.gz')
    print('  DLMC, 452 layers, N=256 %.3f' % geo(best(r, 'base') / best(r, 'tc') for r in f4.values()))

    print('\n== issue #5\'s cuBLAS criterion, N = 256, sparsity 0.95-0.98: the plan\'s pick faster than cuBLAS f16')
    for call in ('c3', 'c4'):
        d = load(call + '/full256.csv.gz')
        won = tot = 0
        for r in d.values():
            if float(r['sparsity']) < 0.95:
                continue
            col = {'rows-k16': 'tc_f16_k16_us', 'rows-k8': 'tc_f16_k8_us', 'tiles': 'tc_f16_tiles_us'}[r['auto_form']]
            tot += 1
            won += t(r, col) < t(r, 'cublas_f16_us')
        cub = sorted(t(r, 'cublas_f16_us') for r in d.values() if r['m'] == '512' and r['k'] == '2048')
        print('  %s: %d of %d; cuBLAS on the 512 x 2048 layers: median %.1f us (%.1f-%.1f)' % (
            call, won, tot, cub[len(cub) // 2], cub[0], cub[-1]))

    print('\n== call 5, Nsight Compute, resident kernel, N = 256, f16 k16: active cycles a multiprocessor')
    for name in ('bottleneck_1_block_group4_2_1', 'body_encoder_layer_3_ffn_conv2_fully_connected'):
        with gzip.open(os.path.join(HERE, 'c5/raw_%s.csv.gz' % name), 'rt') as f:
            rows = list(csv.reader(f))
        h, v = rows[0], rows[2]
        val = {k: v[i] for i, k in enumerate(h)}
        mean, top = float(val['sm__cycles_active.avg']), float(val['sm__cycles_active.max'].replace(',', ''))
        print('  %-48s mean %6.0f  max %6.0f  (max/mean %.2f)' % (name, mean, top, top / mean))

    if lens:
        print('\n== call 6, the spread inside the block, against main (base/new), by kernel and spread rows')
        c6 = load('c6/all/tc_bench.csv.gz')
        c6.update(load('c6/full256.csv.gz'))
        for ks in (16, 8):
            for n in (64, 128, 256, 512):
                groups = {'resident, rows spread': [], 'resident, none spread': [], 'gather (unchanged)': []}
                for k, r in c6.items():
                    if k[1] != n:
                        continue
                    L = lens[k[0]]
                    m, kk, nnz = int(r['m']), int(r['k']), int(r['nnz'])
                    ratio = t(r, 'base_f16_k%d_us' % ks) / t(r, 'tc_f16_k%d_us' % ks)
                    if not resident(m, kk, nnz, n):
                        groups['gather (unchanged)'].append(ratio)
                        continue
                    mean = nnz / m
                    spread = m < 132 * 16 * 8 and any(
                        5 <= (l + ks - 1) // ks <= 64 and (l + ks - 1) // ks >= 8 and l > 1.5 * mean for l in L)
                    groups['resident, rows spread' if spread else 'resident, none spread'].append(ratio)
                print('  k%-2d N=%-3d ' % (ks, n) + '  '.join('%s: %3d layers %.3f' % (g, len(v), geo(v))
                                                        for g, v in groups.items()))
        d = load('c6/full256.csv.gz')
        won = {'new': 0, 'base': 0}
        tot = 0
        for r in d.values():
            if float(r['sparsity']) < 0.95:
                continue
            tot += 1
            f = r['auto_form']
            for side, pre in (('new', 'tc'), ('base', 'base')):
                col = 'tc_f16_tiles_us' if f == 'tiles' else '%s_f16_%s_us' % (pre, f[5:])
                won[side] += t(r, col) < t(r, 'cublas_f16_us')
        print('  the cuBLAS criterion in that run: new %d, main %d of %d' % (won['new'], won['base'], tot))


def resident(m, k, nnz, n):
    """rx_try's rule (H200, 132 multiprocessors), with the rows as records."""
    if k > 2904:
        return False
    w = 64 if k <= 1613 else 32
    strips = (n + w - 1) // w
    blocks = max(1, min(132 // strips, (m + 15) // 16)) * strips
    gpc = nnz * n / (blocks * k * w)
    return m >= 132 * 16 * 8 or (blocks * 16 >= 12 * 132 and gpc >= (0.5 if w == 64 else 0.75))


if __name__ == '__main__':
    main()
