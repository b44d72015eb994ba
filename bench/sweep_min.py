#!/usr/bin/python3
"""sweep_min.py - merge gpu_bench_sweep.py sweeps of the same code into one,
keeping per (matrix, dtype, N, strategy) the fastest timing.

    sweep_min.py --out merged.csv.gz sweep1.csv.gz sweep2.csv.gz ...

A timing is a median of many runs, but on a shared machine a slow window
of a few milliseconds can inflate every candidate timed in it (seen as
2-3x on a few cases of the 2026-11-27 H100 record); the minimum over two
runs of the same kernels drops those without averaging them in.  Use it
only for sweeps of one build: the minimum of two different kernels is
neither's time.
"""
import argparse
import csv
import gzip
import sys


def rows_of(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        r = csv.DictReader(f)
        return r.fieldnames, list(r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("sweeps", nargs="+")
    args = ap.parse_args()
    fields, best, order = None, {}, []
    for path in args.sweeps:
        f, rows = rows_of(path)
        fields = fields or f
        for r in rows:
            key = (r["matrix"], r["backend"], r["dtype"], r["N"], r["strategy"])
            if key not in best:
                order.append(key)
                best[key] = r
            elif float(r["median_ms"]) < float(best[key]["median_ms"]):
                best[key] = r
    opener = gzip.open if args.out.endswith(".gz") else open
    with opener(args.out, "wt", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for key in order:
            w.writerow(best[key])
    print("sweep_min: %d timings from %d sweeps" % (len(order), len(args.sweeps)), file=sys.stderr)


if __name__ == "__main__":
    main()
