#!/usr/bin/python3
"""select_eval.py - how close each selector comes to the oracle, on matrices
it was not trained on.

    bench/select_eval.py --sweep 'sweep*.csv' --select 'select*.csv' \
        [--held-out 'heldout*.csv'] [--repeats repeats.csv] [--folds 5] \
        [--out bench/results/selection/openmp.md]

Inputs are loom-sweep's CSVs (every candidate timed on every matrix and N)
and its --select-out CSVs (what the C selectors chose, and tune's cost).
The matrices are split into folds (by matrix, never by row or by N); for
each fold the model is trained on the other folds (tools/loom-train's code),
the rules' thresholds are refitted on the other folds, and the best single
fixed design is chosen on the other folds; all are scored on the held-out
fold.  Score of a choice = oracle time / chosen time (1 = the best design),
averaged over every held-out (matrix, N).  tune needs no training: its
recorded choices are scored on every matrix, and its cost is its planning
time in units of the chosen design's SpMM time.

CUDA (sweeps from bench/gpu_bench_sweep.py): the refit emulates the CUDA
rules, whose designs carry the speed options of the benchmark's
candidates; "rules in C" is the C rules' own choice as gpu_bench timed it
(--select; a design that is not a candidate is scored by its chosen_ms).
--repeats gives a second timing of some candidates' kernels, from which
the table states the sweep's noise.
"""
import argparse
import csv
import glob
import importlib.machinery
import importlib.util
import math
import os
import random
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader("loom_train", os.path.join(HERE, "..", "tools", "loom-train"))
_spec = importlib.util.spec_from_loader("loom_train", _loader)
lt = importlib.util.module_from_spec(_spec)
_loader.exec_module(lt)


def lanes_for_mean(mean):
    w = 2
    while w < 32 and w < mean:
        w *= 2
    return w


def rules_choice(f, n, layout, pr_max_n, eb_min_cv, eb_min_mom, backend="openmp"):
    """lib/select_rules.c, with its thresholds as arguments: the design it
    names for a CPU backend, or for CUDA (whose speed options it sets as
    the GPU benchmark's candidates have them)."""
    skewed = f["row_cv"] > eb_min_cv or f["max_over_mean"] > eb_min_mom
    # CUDA: SR under EB from N = 3, and below on 300000 non-zeros or more
    # (the narrow and wide walks; fixed, as in select_rules.c, not part of
    # the fitted grid)
    sr_eb = backend == "cuda" and skewed and (n >= 3 or f["nnz"] >= 300000)
    pr = n <= pr_max_n and not sr_eb
    name = "%s-%s-%s" % ("eb" if skewed else "rb", "cm" if layout else "rm", "pr" if pr else "sr")
    opts = []
    if backend == "cuda":
        if pr:
            w = lanes_for_mean(f["row_mean"])
            if skewed:
                w = max(w, 8)
                opts.append("chunk=%d" % (64 if w == 8 else 256))
            opts += ["lanes=%d" % w, "vdl"]
        else:
            opts += (["chunk=128"] if skewed else []) + ["vdl", "csc"]
        return name + ":" + ",".join(opts)
    if skewed:
        opts.append("chunk=256")
    if pr:
        opts.append("lanes=8")
    return name + (":" + ",".join(opts) if opts else "")


GRID = [(p, c, m) for p in (0, 1, 2, 4, 8, 16, 32, 64, 128, 256)
        for c in (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 1e9)
        for m in (4, 8, 16, 32, 64, 128, 1e9)]


def score(times, key, choice):
    best = min(times[key].values())
    t = times[key].get(lt.product_name(key[1], choice, key[3]))
    return best / t if t else 0.0


def fit_rules(times, rawf, keys, backend):
    best, arg = -1, None
    for g in GRID:
        s = sum(score(times, k, rules_choice(rawf[k], k[3], 0, *g, backend)) for k in keys) / len(keys)
        if s > best + 1e-12:
            best, arg = s, g
    return arg


def best_fixed(times, keys):
    cands = lt.candidates_of(times)
    return max(cands, key=lambda c: sum(score(times, k, c) for k in keys))


def geo(vals):
    return math.exp(sum(math.log(max(v, 1e-9)) for v in vals) / len(vals)) if vals else float("nan")


def summary(vals):
    if not vals:
        return "n/a"
    g = math.exp(sum(math.log(max(v, 1e-9)) for v in vals) / len(vals))
    return "%.3f | %.3f | %.3f | %3.0f%%" % (sum(vals) / len(vals), g, min(vals),
                                           100.0 * sum(v >= 0.95 for v in vals) / len(vals))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep", required=True)
    ap.add_argument("--select")
    ap.add_argument("--held-out", help="loom-sweep --select-only CSVs, one fold's model each")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--rate", type=float, default=0.05)
    ap.add_argument("--min-leaf", type=int, default=5)
    ap.add_argument("--margin", type=float, default=0.1)
    ap.add_argument("--out")
    ap.add_argument("--repeats", help="second timings of candidates: matrix,backend,dtype,N,strategy,ms")
    args = ap.parse_args()
    args.lightgbm = False

    rows = lt.read_sweeps(sorted(glob.glob(args.sweep)))
    backend = rows[0]["backend"]
    times, feats = lt.problems(rows)
    rawf = {}
    feat_cost = {}
    for r in rows:
        k = (r["matrix"], r["backend"], r["dtype"], int(r["N"]))
        rawf[k] = r
        feat_cost.setdefault(r["matrix"], float(r["features_ms"]))
    matrices = sorted({k[0] for k in times})
    rng = random.Random(2026)
    order = matrices[:]
    rng.shuffle(order)
    fold_of = {m: i % args.folds for i, m in enumerate(order)}

    res = {"model (= auto)": [], "rules, refitted": [], "rules, papers' thresholds (before the refit)": [], "best fixed design": []}
    ns_of = {name: [] for name in res}  # the N of each score, in the same order
    per_n = {}
    fixed_names, rule_fits = [], []
    for fold in range(args.folds):
        train = [k for k in times if fold_of[k[0]] != fold]
        test = [k for k in times if fold_of[k[0]] == fold]
        models = lt.fit(times, feats, train, args)
        g = fit_rules(times, rawf, train, backend)
        rule_fits.append(g)
        fixed = best_fixed(times, train)
        fixed_names.append(fixed)
        for k in test:
            choice = lt.choose(models, feats[k], fixed if args.margin >= 0 else None, args.margin)
            s = score(times, k, choice)
            res["model (= auto)"].append(s)
            per_n.setdefault(k[3], []).append(s)
            res["rules, refitted"].append(score(times, k, rules_choice(rawf[k], k[3], 0, *g, backend)))
            res["rules, papers' thresholds (before the refit)"].append(
                score(times, k, rules_choice(rawf[k], k[3], 0, 4, 1.0, 32.0, backend)))
            res["best fixed design"].append(score(times, k, fixed))
            for name in res:
                if len(ns_of[name]) < len(res[name]):
                    ns_of[name].append(k[3])

    def by_strategy(key, strat):
        t = times.get(key, {}).get(lt.product_name(key[1], strat, key[3]))
        return min(times[key].values()) / t if t else 0.0

    held = {}
    held_cost = {}
    if args.held_out:
        for path in sorted(glob.glob(args.held_out)):
            with lt.open_text(path) as f:
                for r in csv.reader(f):
                    mat, be, dt, n, sel, strat, plan_ms, chosen_ms = r[:8]
                    key = (mat, be, dt, int(n))
                    held.setdefault(sel, []).append(by_strategy(key, strat))
                    ns_of.setdefault("%s in C, held-out model, scored on the sweeps" % sel, []).append(int(n))
                    if float(chosen_ms) > 0:
                        held_cost.setdefault(sel, []).append(float(plan_ms) / float(chosen_ms))
    for sel, vals in held.items():
        res["%s in C, held-out model, scored on the sweeps" % sel
            ] = vals
    recorded = {}  # selector -> (scores, Ns, plan costs in SpMM runs)
    if args.select:
        for path in sorted(glob.glob(args.select)):
            with lt.open_text(path) as f:
                for r in csv.reader(f):
                    mat, be, dt, n, sel, strat, plan_ms, chosen_ms, best_ms, best_s = r
                    chosen_ms, best_ms, plan_ms = float(chosen_ms), float(best_ms), float(plan_ms)
                    key = (mat, be, dt, int(n))
                    if key not in times:
                        continue
                    v = by_strategy(key, strat)
                    if lt.product_name(be, strat, int(n)) not in times[key] and chosen_ms > 0:
                        v = min(times[key].values()) / chosen_ms  # timed, not a candidate
                    scores, ns, costs = recorded.setdefault(sel, ([], [], []))
                    scores.append(v)
                    ns.append(int(n))
                    if plan_ms >= 0 and chosen_ms > 0:
                        costs.append(plan_ms / chosen_ms)
    for sel in ("rules", "auto", "tune"):
        if sel in recorded:
            name = "%s in C (all matrices)" % sel
            res[name], ns_of[name] = recorded[sel][0], recorded[sel][1]

    # Feature extraction against one SpMM of the fastest design, per problem
    # (not timed by gpu_bench: features_ms -1).
    fc = [feat_cost[k[0]] / min(times[k].values()) for k in times if feat_cost[k[0]] >= 0]
    fc1 = [feat_cost[k[0]] / min(times[k].values()) for k in times if k[3] == 1 and feat_cost[k[0]] >= 0]

    out = []
    out.append("# Selection on backend %s: held-out fraction of the oracle\n" % backend)
    out.append("%d matrices, N in {%s}, %d candidates; %d-fold split by matrix (seed 2026).  "
               "Score = oracle time / time of the chosen candidate, per (matrix, N).\n"
               % (len(matrices), ",".join(str(n) for n in sorted(per_n)), len(lt.candidates_of(times)),
                  args.folds))
    out.append("Times are geometric means over the sweeps given (%d files); the oracle is the best "
               "candidate by those times.\n" % len(glob.glob(args.sweep)))
    out.append("| selector | mean | geo-mean | worst | problems >= 95% | geo-mean, N <= 256 |")
    out.append("|---|---|---|---|---|---|")
    for name, vals in res.items():
        small = [v for v, n in zip(vals, ns_of.get(name, [])) if n <= 256]
        out.append("| %s | %s | %.3f |" % (name, summary(vals), geo(small)))
    out.append("\nModel (= auto, since a model exists) by N, held out:\n")
    out.append("| N | mean | geo-mean | worst | >= 95% |")
    out.append("|---|---|---|---|---|")
    for n in sorted(per_n):
        out.append("| %d | %s |" % (n, summary(per_n[n])))
    by_n = [name for name in res if len(ns_of.get(name, [])) == len(res[name])]
    out.append("\nGeometric means by N:\n")
    out.append("| N | " + " | ".join(by_n) + " |")
    out.append("|---|" + "---|" * len(by_n))
    for n in sorted(per_n):
        out.append("| %d | %s |" % (n, " | ".join(
            "%.3f" % geo([v for v, m in zip(res[name], ns_of[name]) if m == n]) for name in by_n)))
    out.append("\nBest fixed design per fold: %s" % ", ".join(fixed_names))
    out.append("Refitted rule thresholds per fold (PR_MAX_N, EB_MIN_CV, EB_MIN_MAX_OVER_MEAN): %s"
               % ", ".join("(%g, %g, %g)" % g for g in rule_fits))
    g_all = fit_rules(times, rawf, list(times), backend)
    out.append("Thresholds refitted on all matrices: PR_MAX_N %g, EB_MIN_CV %g, EB_MIN_MAX_OVER_MEAN %g"
               % g_all)
    if args.repeats:
        ratio, perfect = [], []
        with lt.open_text(args.repeats) as f:
            for r in csv.DictReader(f):
                key = (r["matrix"], r["backend"], r["dtype"], int(r["N"]))
                t = times.get(key, {}).get(lt.product_name(key[1], r["strategy"], key[3]))
                if not t:
                    continue
                ratio.append(float(r["ms"]) / t)
                if t == min(times[key].values()):
                    perfect.append(t / float(r["ms"]))
        dev = sorted(abs(math.log(x)) for x in ratio)
        out.append("\nNoise: %d candidates timed twice (same kernel; --repeats).  Second / first "
                   "time: geo-mean %.3f, median |difference| %.1f%%, 90th percentile %.1f%%, "
                   "largest %.1f%%.  Where the twice-timed candidate is the oracle (%d problems), "
                   "the oracle's own second timing scores geo-mean %.3f, worst %.3f: what a "
                   "perfect selector would show against this single-timing oracle."
                   % (len(ratio), geo(ratio), 100 * (math.exp(dev[len(dev) // 2]) - 1),
                      100 * (math.exp(dev[int(0.9 * (len(dev) - 1))]) - 1),
                      100 * (math.exp(dev[-1]) - 1), len(perfect), geo(perfect),
                      min(perfect) if perfect else float("nan")))
    for sel, c in held_cost.items():
        out.append("Plan cost of %s with the held-out model (plan time / SpMM time of its choice): "
                   "mean %.1f, median %.1f, max %.1f" % (sel, sum(c) / len(c), statistics.median(c), max(c)))
    for sel, (_, ns, costs) in sorted(recorded.items()):
        if costs:
            out.append("\nPlan cost of %s in C (plan time / chosen design's SpMM time, in SpMM runs): "
                       "mean %.1f, median %.1f, 90th percentile %.1f, max %.1f over %d problems"
                       % (sel, sum(costs) / len(costs), statistics.median(costs),
                          sorted(costs)[int(0.9 * (len(costs) - 1))], max(costs), len(costs)))
    if fc and fc1:
        out.append("Feature extraction (loom_csr_features) / fastest SpMM: median %.3f, max %.3f over all "
                   "problems; at N = 1: median %.3f, max %.3f" % (statistics.median(fc), max(fc),
                                                                  statistics.median(fc1), max(fc1)))
    text = "\n".join(out) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
