#!/usr/bin/python3
"""Per input, dtype and N: each listed design's time (us), and the best of
the designs without lanes across warps over the best of all (table.txt)."""
import collections, csv, gzip, math, sys
rows = list(csv.DictReader(gzip.open(sys.argv[1] if len(sys.argv) > 1 else "f64.csv.gz", "rt")))
t = collections.defaultdict(dict); cus = collections.defaultdict(lambda: 1e99); cfgs = []
for r in rows:
    k = (r["matrix"], r["dtype"], int(r["n"])); v = float(r["median_us"])
    if r["impl"] == "loom":
        t[k][r["config"]] = v
        if r["config"] not in cfgs:
            cfgs.append(r["config"])
    elif r["impl"] == "cusparse":
        cus[k] = min(cus[k], v)
wide = lambda c: any(c.startswith("rb-rm-pr:lanes=%d," % w) for w in (64, 128, 256))
print("%-26s %3s %3s %7s " % ("matrix", "dt", "N", "cus_us") + " ".join("%9s" % c.replace("rb-rm-pr:lanes=", "pr")[:9] for c in cfgs) + "  narrow/best")
g = collections.defaultdict(list)
for k in sorted(t):
    b = min(t[k].values()); bn = min(v for c, v in t[k].items() if not wide(c))
    g[(k[1], k[2])].append(math.log(bn / b))
    print("%-26s %3s %3d %7.1f " % (k[0][:26], k[1], k[2], cus[k]) + " ".join("%9.2f" % t[k][c] for c in cfgs) + "  %.3f" % (bn / b))
print("geometric mean of narrow/best by dtype and N:")
for key in sorted(g):
    print("  %s N=%-3d %.3f" % (key[0], key[1], math.exp(sum(g[key]) / len(g[key]))))
