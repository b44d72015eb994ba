#!/usr/bin/python3
"""gpu_bench_ab.py - compare two builds' gpu_bench CSVs taken on one machine.

    bench/gpu_bench_ab.py --a A1.csv A2.csv --b B1.csv B2.csv

Each side may give several runs (interleave them: A, B, A, B); a
candidate's time on a side is its fastest median over that side's runs.
Prints, per dtype, matrix and N, the best loom design's time on each side and
their ratio (A / B: above 1 means B is faster), the geometric mean of the
ratio by N, the same per candidate design, and A's run-to-run spread
(where A has two runs) as a guide to the noise.  The selectors' rows
(rules=, auto=, tune=) and cuSPARSE are left out.
"""
import argparse
import collections
import csv
import math


def load(path):
    times = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["impl"] != "loom" or r["config"].split("=")[0] in ("rules", "auto", "tune"):
                continue
            # the dtype leads the name: a run of f32 and f64 keeps both
            times[(r["dtype"] + " " + r["matrix"], int(r["n"]), r["config"])] = float(r["median_us"])
    return times


def fastest(runs):
    out = {}
    for run in runs:
        for k, t in run.items():
            out[k] = min(t, out.get(k, math.inf))
    return out


def best_design(times):
    best = {}
    for (m, n, c), t in times.items():
        if (m, n) not in best or t < best[(m, n)][0]:
            best[(m, n)] = (t, c)
    return best


def geo(values):
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", nargs="+", required=True, help="gpu_bench CSVs of build A")
    ap.add_argument("--b", nargs="+", required=True, help="gpu_bench CSVs of build B")
    args = ap.parse_args()
    a_runs = [load(p) for p in args.a]
    b_runs = [load(p) for p in args.b]
    a, b = fastest(a_runs), fastest(b_runs)
    a_best, b_best = best_design(a), best_design(b)

    by_n = collections.defaultdict(list)
    print("matrix                         N      A us  A design                            "
          "   B us  B design                          A/B  A spread")
    for key in sorted(a_best):
        if key not in b_best:
            continue
        (ta, ca), (tb, cb) = a_best[key], b_best[key]
        spread = ""
        if len(a_runs) > 1:
            ts = [run.get((key[0], key[1], ca)) for run in a_runs]
            ts = [t for t in ts if t is not None]
            spread = f"{(max(ts) - min(ts)) / min(ts):.3f}"
        by_n[key[1]].append(ta / tb)
        print(f"{key[0][:30]:30s} {key[1]:4d} {ta:9.2f}  {ca:34s} {tb:9.2f}  {cb:34s} "
              f"{ta / tb:5.3f} {spread}")
    print("\nbest design, geometric mean of A/B by N:")
    for n in sorted(by_n):
        print(f"  N = {n:4d}: {geo(by_n[n]):.3f} over {len(by_n[n])} matrices")
    per_design = collections.defaultdict(list)
    for k, ta in a.items():
        if k in b:
            per_design[k[2]].append(ta / b[k])
    print("\nper design, geometric mean of A/B over matrices and N:")
    for c, v in sorted(per_design.items()):
        print(f"  {c:40s} {geo(v):.3f} over {len(v)}")


if __name__ == "__main__":
    main()
