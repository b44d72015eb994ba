#!/usr/bin/python3
"""gpu_bench_sweep.py - bench/gpu_bench's CSV in loom-sweep's formats, so that
tools/loom-train and bench/select_eval.py learn and score the CUDA backend's
selection the same way as the CPU backends'.

    bench/gpu_bench_sweep.py --data DIR --sms 132 --gpu-l2-kb 61440 \\
        --mem-bw-gbs 4800 --out sweep.csv.gz --select-out select.csv \\
        --repeats-out repeats.csv gpu_bench.csv

gpu_bench times every loom candidate on the GPU (impl=loom rows; config is
the strategy) and the selectors' choices (config "rules=STRATEGY",
"auto=STRATEGY", "tune=STRATEGY", with the plan's creation time in plan_us
where gpu_bench recorded it).
This writes:
  --out          loom-sweep's CSV (one row per matrix, N and candidate, the
                 feature columns included), for loom-train and select_eval;
  --select-out   loom-sweep's --select-out rows for the selectors' choices
                 (chosen_ms is the selector row's own time, as the rules'
                 design is usually not one of the candidates; plan_ms -1
                 where gpu_bench did not record it);
  --repeats-out  matrix,backend,dtype,N,strategy,ms: a second timing of a
                 candidate's exact kernel, where the rules chose it (below).

The features are computed here as the library computes them at plan time
for a CUDA plan: loom_csr_features (lib/features.c) on the matrix as
loom_csr_read builds it (symmetric files mirrored, duplicates summed), then
loom__feature_vector (lib/select_features.c) with the device's SMs, L2 and
bandwidth as the CUDA backend's device_info slot reports them (give the
values `loom info --hardware` or the device attributes give on the GPU that
ran gpu_bench).  The host CPU's cores, threads and llc_kb are not known
here and are written as 0; CUDA models do not read them (tools/loom-train).
The R-MAT graphs gpu_bench generates on the GPU (rmat-1e+06 ...) have no
file: their row lengths are made here by the same generator (rmat_edges and
rmat_matrix in bench/gpu_bench.cu, seed 2024, integer for integer), and the
count of distinct edges must match the CSV's non-zeros.  Other matrices
with no file in DIR are left out.

Repeats: at N = 1 the speed-only options of the candidates (vdl: columns per
lane, 1 at N = 1; csc: not used by the N = 1 RB+SR binned kernel, the EB+SR
segments or any PR kernel; backends/cuda/spmm_launch.cuh) change nothing,
so a rules row there that names a candidate's design without them launched
the same kernel as that candidate: two timings of one kernel, a measure of
the sweep's noise.
"""
import argparse
import csv
import gzip
import math
import os
import sys

import numpy as np

SWEEP_COLUMNS = ["matrix", "backend", "dtype", "N", "design", "lanes", "chunk", "strategy",
                 "median_ms", "runs", "prep_ms", "features_ms", "rows", "cols", "nnz",
                 "row_mean", "row_std", "row_max", "row_cv", "max_over_mean", "empty_frac",
                 "density", "n", "x_layout", "y_layout", "dtype_bytes", "work", "x_over_llc",
                 "y_over_llc", "cores", "threads", "llc_kb", "sms", "gpu_l2_kb", "mem_bw_gbs"]
DTYPE_BYTES = {"f32": 4, "f64": 8}


def row_lengths(path):
    """(rows, cols, nnz, row lengths) of a coordinate Matrix Market file as
    lib/mm_read.c reads it: entries off the diagonal of a symmetric,
    skew-symmetric or hermitian file also stored mirrored; duplicate
    (row, column) entries summed into one."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        header = f.readline().split()
        if len(header) < 5 or header[0] != "%%MatrixMarket" or header[2] != "coordinate":
            sys.exit("gpu_bench_sweep: %s: not a coordinate Matrix Market file" % path)
        symmetry = header[4].lower()
        line = f.readline()
        while line.startswith("%") or not line.strip():
            line = f.readline()
        rows, cols, entries = (int(v) for v in line.split())
        ij = np.loadtxt(f, usecols=(0, 1), dtype=np.int64, comments="%", ndmin=2)
    if len(ij) != entries:
        sys.exit("gpu_bench_sweep: %s: %d entries, the size line says %d" % (path, len(ij), entries))
    i, j = ij[:, 0] - 1, ij[:, 1] - 1
    if symmetry != "general":
        off = i != j
        i, j = np.concatenate([i, j[off]]), np.concatenate([j, i[off]])
    keys = np.unique(i * cols + j)
    lengths = np.bincount(keys // cols, minlength=rows)
    return rows, cols, len(keys), [int(v) for v in lengths]


def mix64(z):
    """gpu_bench.cu's mix64 on numpy uint64 (wrapping arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xbf58476d1ce4e5b9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94d049bb133111eb)
    return z ^ (z >> np.uint64(31))


def rmat_lengths(target, seed=2024, block=1 << 22):
    """(rows, cols, nnz, row lengths) of gpu_bench's R-MAT graph of about
    `target` edges: rmat_edges' keys (row << 32 | column), made in blocks of
    edges, then the distinct ones as rmat_matrix keeps them."""
    edges = int(target)
    scale = 1
    while (1 << scale) * 12 < edges:
        scale += 1
    golden = np.uint64(0x9e3779b97f4a7c15)
    keys = []
    with np.errstate(over="ignore"):
        for e0 in range(0, edges, block):
            e = np.arange(e0, min(edges, e0 + block), dtype=np.uint64)
            state = np.uint64(seed) ^ mix64(e * golden + np.uint64(1))
            r = np.zeros_like(e)
            c = np.zeros_like(e)
            for lv in range(scale):
                if lv & 3 == 0:
                    state = mix64(state + golden)
                u = ((state >> np.uint64(16 * (lv & 3))) & np.uint64(0xffff)).astype(np.float64) / 65536.0
                q = np.where(u < 0.57, 0, np.where(u < 0.76, 1, np.where(u < 0.95, 2, 3))).astype(np.uint64)
                r = (r << np.uint64(1)) | (q >> np.uint64(1))
                c = (c << np.uint64(1)) | (q & np.uint64(1))
            keys.append((r << np.uint64(32)) | c)
    keys = np.unique(np.concatenate(keys))
    m = 1 << scale
    lengths = np.bincount((keys >> np.uint64(32)).astype(np.int64), minlength=m)
    return m, m, len(keys), [int(v) for v in lengths]


def matrix_features(rows, cols, nnz, lengths):
    """loom_csr_features, operation for operation (doubles throughout)."""
    s = sum_sq = 0.0
    row_max, empty = 0.0, 0
    for n in lengths:
        v = float(n)
        s += v
        sum_sq += v * v
        row_max = max(row_max, v)
        empty += n == 0
    mean = std = 0.0
    if rows > 0:
        mean = s / float(rows)
        var = sum_sq / float(rows) - mean * mean
        std = math.sqrt(var) if var > 0 else 0.0
    return {"rows": float(rows), "cols": float(cols), "nnz": float(nnz), "row_mean": mean,
            "row_std": std, "row_max": row_max,
            "row_cv": std / mean if mean > 0 else 0.0,
            "max_over_mean": row_max / mean if mean > 0 else 0.0,
            "empty_frac": float(empty) / float(rows) if rows > 0 else 0.0,
            "density": float(nnz) / (float(rows) * float(cols)) if rows > 0 and cols > 0 else 0.0}


def feature_vector(f, n, es, dev):
    """loom__feature_vector for row-major X and Y on the device `dev`."""
    llc_bytes = (dev["gpu_l2_kb"] if dev["sms"] > 0 else dev["llc_kb"]) * 1024.0
    if llc_bytes <= 0:
        llc_bytes = 1024.0 * 1024.0
    out = dict(f)
    out.update({"n": float(n), "x_layout": 0.0, "y_layout": 0.0, "dtype_bytes": float(es),
                "work": f["nnz"] * float(n),
                "x_over_llc": f["cols"] * float(n) * float(es) / llc_bytes,
                "y_over_llc": f["rows"] * float(n) * float(es) / llc_bytes})
    out.update(dev)
    return out


def parse_strategy(s):
    """'eb-rm-pr:chunk=256,lanes=8,vdl' -> ('eb-rm-pr', {'chunk': '256', ...})"""
    name, _, opts = s.partition(":")
    d = {}
    for o in filter(None, opts.split(",")):
        k, _, v = o.partition("=")
        d[k] = v
    return name, d


def same_kernel_at_n1(rules_strategy, candidates):
    """The candidate that runs the rules' design with the same kernel at
    N = 1 (differing only in vdl and csc), or None."""
    name, opts = parse_strategy(rules_strategy)
    for c in candidates:
        cname, copts = parse_strategy(c)
        extra = {k: v for k, v in copts.items() if k not in ("vdl", "csc")}
        if cname == name and extra == {k: v for k, v in opts.items() if k not in ("vdl", "csc")}:
            return c
    return None


def fmt(v):
    return "%.17g" % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", help="gpu_bench's full CSV (one row per implementation)")
    ap.add_argument("--data", required=True, help="folder of the real matrices (NAME.mtx.gz)")
    ap.add_argument("--sms", type=int, required=True)
    ap.add_argument("--gpu-l2-kb", type=float, required=True)
    ap.add_argument("--mem-bw-gbs", type=float, required=True)
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--out", required=True)
    ap.add_argument("--select-out", required=True)
    ap.add_argument("--repeats-out", required=True)
    args = ap.parse_args()
    dev = {"cores": 0.0, "threads": 0.0, "llc_kb": 0.0, "sms": float(args.sms),
           "gpu_l2_kb": args.gpu_l2_kb, "mem_bw_gbs": args.mem_bw_gbs}

    with open(args.csv, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["impl"] == "loom" and float(r["median_us"]) > 0]
    feats, skipped = {}, set()
    for name in sorted({r["matrix"] for r in rows}):
        # gpu_bench names a matrix by its file less ".gz" or ".mtx.gz"
        base = name[:-len(".mtx")] if name.endswith(".mtx") else name
        path = os.path.join(args.data, base + ".mtx.gz")
        if name.startswith("rmat-") and not os.path.exists(path):
            m, k, nnz, lengths = rmat_lengths(float(name[len("rmat-"):]))
        elif not os.path.exists(path):
            skipped.add(name)
            continue
        else:
            m, k, nnz, lengths = row_lengths(path)
        feats[name] = matrix_features(m, k, nnz, lengths)
    if skipped:
        print("gpu_bench_sweep: no file in %s, left out: %s" % (args.data, ", ".join(sorted(skipped))),
              file=sys.stderr)

    times, rules, chosen = {}, {}, {}
    for r in rows:
        name = r["matrix"]
        if name in skipped:
            continue
        f = feats[name]
        if (int(r["rows"]), int(r["cols"]), int(r["nnz"])) != (f["rows"], f["cols"], f["nnz"]):
            sys.exit("gpu_bench_sweep: %s is %s x %s with %s non-zeros in the CSV but not in %s"
                     % (name, r["rows"], r["cols"], r["nnz"], args.data))
        key = (name, r["dtype"], int(r["n"]))
        ms = float(r["median_us"]) / 1000.0
        sel, eq, strategy = r["config"].partition("=")
        if eq and sel in ("rules", "auto", "tune"):
            plan_us = float(r.get("plan_us") or -1)
            chosen[(sel, key)] = (strategy, ms, plan_us / 1000.0 if plan_us >= 0 else -1)
            if sel == "rules":
                rules[key] = (strategy, ms)
        else:
            times.setdefault(key, {})[r["config"]] = ms

    opener = gzip.open if args.out.endswith(".gz") else open
    with opener(args.out, "wt", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(SWEEP_COLUMNS)
        for (name, dtype, n), cands in sorted(times.items()):
            x = feature_vector(feats[name], n, DTYPE_BYTES[dtype], dev)
            for s, ms in cands.items():
                design, opts = parse_strategy(s)
                w.writerow([name, args.backend, dtype, n, design,
                            opts.get("lanes", 0) if design.endswith("pr") else 0,
                            opts.get("chunk", 0) if design.startswith("eb") else 0,
                            s, "%.9g" % ms, 0, -1, -1] + [fmt(x[c]) for c in SWEEP_COLUMNS[12:]])
    repeats = []
    with open(args.select_out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        for (sel, key) in sorted(chosen):
            if key not in times:
                continue
            s, ms, plan_ms = chosen[(sel, key)]
            best = min(times[key], key=times[key].get)
            w.writerow([key[0], args.backend, key[1], key[2], sel, s, "%.9g" % plan_ms,
                        "%.9g" % ms, "%.9g" % times[key][best], best])
            twin = same_kernel_at_n1(s, times[key]) if sel == "rules" and key[2] == 1 else None
            if twin:
                repeats.append([key[0], args.backend, key[1], key[2], twin, "%.9g" % ms])
    with open(args.repeats_out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["matrix", "backend", "dtype", "N", "strategy", "ms"])
        w.writerows(repeats)
    print("gpu_bench_sweep: %d matrices, %d problems, %d candidate timings; %d selector choices "
          "(%d of the rules'), %d repeats of a candidate's kernel"
          % (len(feats), len(times), sum(len(t) for t in times.values()), len(chosen), len(rules),
             len(repeats)))


if __name__ == "__main__":
    main()
