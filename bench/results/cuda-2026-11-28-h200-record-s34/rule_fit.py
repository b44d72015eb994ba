#!/usr/bin/python3
"""rule_fit.py - the long segments' vector-shape rule fitted on call 4.

Run in a folder holding call 4's A1.csv A2.csv (main) and B1.csv B2.csv
(LOOM_CUDA_TRIAL_LONG_AS_SHORT=1), e.g. after
    tar xzf output/call4_long_as_short.tgz
For each threshold T of chunks x N (nnz / chunk * N) and N >= 32: the
per-design A/B (A's time over B's) where the rule takes B, and the best
design per case over all 284 cases with the rule applied design by design.
"""
import collections
import csv
import math


def load(files):
    times, nnz = collections.defaultdict(list), {}
    for f in files:
        for r in csv.DictReader(open(f)):
            if r['impl'] == 'loom':
                times[(r['matrix'], int(r['n']), r['config'])].append(float(r['median_us']))
                nnz[r['matrix']] = int(r['nnz'])
    return {k: min(v) for k, v in times.items()}, nnz


def geo(v):
    return math.exp(sum(map(math.log, v)) / len(v))


A, nnz = load(['A1.csv', 'A2.csv'])
B, _ = load(['B1.csv', 'B2.csv'])
chunk = lambda k: int(k[2].split('chunk=')[1].split(',')[0])
cases = sorted(set((k[0], k[1]) for k in A))
for th in (5e4, 1e5, 1.5e5, 2e5, 3e5, 4e5):
    sel = set(k for k in A if k in B and k[1] >= 32 and nnz[k[0]] * k[1] / chunk(k) >= th)
    r = [A[k] / B[k] for k in sel]
    best = []
    for c in cases:
        ks = [k for k in A if (k[0], k[1]) == c]
        best.append(min(A[k] for k in ks) / min(B[k] if k in sel else A[k] for k in ks))
    print('chunks x N >= %.1e: %3d designs, A/B geomean %.3f, lowest %.3f | best design over %d cases:'
          ' geomean %.4f, lowest %.3f, highest %.3f'
          % (th, len(r), geo(r), min(r), len(best), geo(best), min(best), max(best)))
