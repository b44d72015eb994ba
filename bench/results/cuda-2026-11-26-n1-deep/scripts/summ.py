import csv, sys, collections
# per (matrix, n): best loom per variant file, cuSPARSE best, ratio
rows = collections.defaultdict(dict)
for p in sys.argv[1:]:
    tag = p.split('/')[-1].replace('_summary.csv', '')
    for r in csv.DictReader(open(p)):
        rows[(r['matrix'], int(r['n']))][tag] = (float(r['loom_us']), float(r['cusparse_us']), r['loom_config'], float(r['loom_pct_floor']))
for k in sorted(rows):
    print(k[0], 'N=%d' % k[1], '  '.join('%s %.1f/cs %.1f=%.3f (%s, %.1f%%)' % (t, v[0], v[1], v[1] / v[0], v[2].replace('eb-rm-sr:', '').replace(',vdl,csc', ''), v[3]) for t, v in sorted(rows[k].items())))
