#!/usr/bin/env python3
"""The A/B of ab.sh: per model and deployment, the measured 2-thread latency (median of each
bench run's rounds) with native kernels on libgomp's team (omp) and on our worker (native),
each from its own LUT, and the ratio omp / native of the medians over the runs; then the
same over the runs whose 2-thread speed probe read within 10 % of their profile's (the host
slows 2-thread work by up to ~1.6x for tens of seconds at a time: ../speed-probe/).
usage: ab_table.py DIR   (DIR/MODEL.MODE.rN.csv from ab.sh)"""
import csv, glob, os, statistics, sys, collections

d = sys.argv[1] if len(sys.argv) > 1 else "."
got = collections.defaultdict(list)  # (model, deployment, mode) -> [(measured ms, 2-thread probe ratio) per run]
pred = {}
for f in sorted(glob.glob(os.path.join(d, "*.*.r*.csv"))):
    if f.endswith(".steps.csv"): continue
    model, mode, _ = os.path.basename(f)[:-4].split(".")
    for r in csv.DictReader(open(f)):
        if r["threads"] != "2": continue
        got[(model, r["deployment"], mode)].append((float(r["measured_ms"]), float(r["speed_ratio_t2"])))
        pred[(model, r["deployment"], mode)] = float(r["predicted_ms"])


def table(keep, title):
    print(f"\n{title}\n")
    print("| model | deployment | omp: measured ms (2-thread probe) | native: measured ms (2-thread probe) | omp / native |")
    print("|---|---|---|---|---:|")
    ratios = []
    for (model, dep, mode) in sorted(got):
        if mode != "omp" or (model, dep, "native") not in got: continue
        a = [x for x in got[(model, dep, "omp")] if keep(x)]
        b = [x for x in got[(model, dep, "native")] if keep(x)]
        show = lambda v: " / ".join("%.2f (%.2f)" % x for x in v) or "-"
        r = statistics.median(x[0] for x in a) / statistics.median(x[0] for x in b) if a and b else None
        if r: ratios.append(r)
        print(f"| {model} | {dep} | {show(a)} | {show(b)} | {'%.3f' % r if r else '-'} |")
    if ratios:
        print(f"\nomp / native over {len(ratios)} deployments: median {statistics.median(ratios):.3f}, "
              f"range {min(ratios):.3f} ... {max(ratios):.3f}, faster on omp in {sum(r < 1 for r in ratios)}")


table(lambda x: True, "All runs:")
table(lambda x: abs(x[1] - 1) <= 0.10, "Runs whose 2-thread speed probe read within 10 % of the profile's:")
