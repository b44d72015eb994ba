import csv,sys,math,collections
def load(p):
    d={}
    for r in csv.DictReader(open(p)):
        if r['dtype']!='f32': continue
        d[(r['matrix'],int(r['n']),r['impl'],r['config'])]=float(r['median_us'])
    return d
a=load(sys.argv[1]); b=load(sys.argv[2])
by=collections.defaultdict(list)
for k in a:
    if k in b and k[2] in ('loom','cusparse'):
        cfg=k[3]
        if cfg.startswith('rules') or cfg.startswith('auto') or cfg.startswith('tune'): cfg=cfg.split('=')[0]
        by[(k[2],cfg)].append(math.log(b[k]/a[k]))
for key in sorted(by, key=lambda k:-len(by[k])):
    v=by[key]
    print('%-9s %-40s new/old %.3f  (%d)'%(key[0],key[1][:40],math.exp(sum(v)/len(v)),len(v)))
