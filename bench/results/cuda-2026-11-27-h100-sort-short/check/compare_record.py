#!/usr/bin/python3
"""This check's best design and cuSPARSE per case beside session 26's record
(../../cuda-2026-11-27-h100-record-s26/, before the change): compare_record.txt."""
import csv
new = {(r["matrix"], r["n"]): r for r in csv.DictReader(open("gpu_bench_summary.csv"))}
old = {}
for f in ("../../cuda-2026-11-27-h100-record-s26/bench/gpu_bench_summary.csv",
          "../../cuda-2026-11-27-h100-record-s26/bench_extra/gpu_bench_summary.csv"):
    for r in csv.DictReader(open(f)):
        old[(r["matrix"], r["n"])] = r
print("%-18s %4s %9s %9s %7s | %9s %9s %7s | %s" % ("matrix", "N", "loom_us", "cus_us", "ratio",
      "rec_loom", "rec_cus", "rec", "best design here"))
for k in sorted(new, key=lambda k: (k[0], int(k[1]))):
    n, o = new[k], old.get(k)
    print("%-18s %4s %9s %9s %7s | %9s %9s %7s | %s" % (k[0][:18], k[1], n["loom_us"], n["cusparse_us"],
          n["speedup"], o["loom_us"] if o else "-", o["cusparse_us"] if o else "-",
          o["speedup"] if o else "-", n["loom_config"]))
