#!/usr/bin/env python3
"""plot_gpu.py - plot gpu_bench's summary: speedup of the best loom design
over the best cuSPARSE algorithm per (matrix, N), one panel per dtype, and
loom's fraction of the bytes-moved floor.  Usage: plot_gpu.py SUMMARY.csv OUT.png"""
import csv
import math
import sys
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
dtypes = sorted({r["dtype"] for r in rows})
fig, axes = plt.subplots(2, len(dtypes), figsize=(7 * len(dtypes), 9), squeeze=False)
for col, dt in enumerate(dtypes):
    sel = [r for r in rows if r["dtype"] == dt]
    by_n = defaultdict(list)
    for r in sel:
        by_n[int(r["n"])].append(float(r["speedup"]))
    ns = sorted(by_n)
    ax = axes[0][col]
    for n in ns:
        ax.scatter([n] * len(by_n[n]), by_n[n], s=8, alpha=0.5, color="tab:blue")
    geo = [math.exp(sum(math.log(v) for v in by_n[n]) / len(by_n[n])) for n in ns]
    ax.plot(ns, geo, "o-", color="tab:red", label="geometric mean")
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.axhline(0.8, color="gray", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("N")
    ax.set_ylabel("best loom / best cuSPARSE (speedup)")
    ax.set_title(f"{dt}: speedup per (matrix, N)")
    ax.legend()
    ax = axes[1][col]
    for r in sel:
        ax.scatter(int(r["n"]), float(r["loom_pct_floor"]), s=8, alpha=0.5,
                   color="tab:green" if r["matrix"].startswith("rmat") else "tab:blue")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("N")
    ax.set_ylabel("% of HBM bytes-moved floor (loom)")
    ax.set_title(f"{dt}: loom vs the bytes floor (green: R-MAT)")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
