#!/usr/bin/python3
"""Best cuSPARSE time over each listed design's, per (matrix, N): table.txt."""
import csv, collections, gzip, sys
rows = list(csv.DictReader(gzip.open(sys.argv[1] if len(sys.argv) > 1 else "explore.csv.gz", "rt")))
t = collections.defaultdict(dict); cus = collections.defaultdict(lambda: 1e99); cfgs = []
for r in rows:
    k = (r["matrix"], int(r["n"])); v = float(r["median_us"])
    if r["impl"] == "loom":
        t[k][r["config"]] = v
        if r["config"] not in cfgs:
            cfgs.append(r["config"])
    elif r["impl"] == "cusparse":
        cus[k] = min(cus[k], v)
short = lambda c: c.replace("eb-rm-sr:chunk=", "eb").replace(",vdl,csc", "").replace("rb-rm-sr:", "rb:").replace(",tile-major", "+tm")
print("%-28s %4s %7s " % ("matrix", "N", "cus_us") + " ".join("%9s" % short(c)[:9] for c in cfgs))
for k in sorted(t):
    print("%-28s %4d %7.1f " % (k[0][:28], k[1], cus[k]) +
          " ".join(("%9.3f" % (cus[k] / t[k][c])) if c in t[k] else "        -" for c in cfgs))
