#!/usr/bin/env python3
"""A/B table of two bench runs in P/A and P/B (default old, new): per model, thread count and
deployment, predicted and measured ms (median of the rounds) and the gap, and B's measured
over A's. usage: agg_ab.py P [A B]"""
import csv, glob, os, statistics, sys
P = sys.argv[1]
A, B = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else ("old", "new")
rows = {}
for v in (A, B):
    for f in sorted(glob.glob(os.path.join(P, v, "*.r[0-9].csv"))):
        for r in csv.DictReader(open(f)):
            if r["status"] != "ok":
                continue
            d = rows.setdefault((r["model"], r["threads"], r["deployment"]), {}).setdefault(v, {"pred": [], "meas": []})
            d["pred"].append(float(r["predicted_ms"]))
            d["meas"].append(float(r["measured_ms"]))
print(f"| model | threads | deployment | {A}: predicted ms | measured ms (runs) | gap | {B}: predicted ms | measured ms (runs) | gap | {B} / {A} measured |")
print("|---|---:|---|---:|---|---:|---:|---|---:|---:|")
within = {A: [0, 0], B: [0, 0]}
for k in sorted(rows):
    cells, med = [], {}
    for v in (A, B):
        d = rows[k].get(v)
        if not d:
            cells += ["-", "-", "-"]
            continue
        p = statistics.median(d["pred"]); m = statistics.median(d["meas"]); gap = (m - p) / p * 100
        med[v] = m
        if k[2].startswith("opt-"):
            within[v][0] += abs(gap) <= 10; within[v][1] += 1
        cells += [f"{p:.2f}", " / ".join(f"{x:.2f}" for x in d["meas"]), f"{gap:+.1f} %"]
    ratio = f"{med[B] / med[A]:.2f}" if A in med and B in med else "-"
    print(f"| {k[0]} | {k[1]} | {k[2]} | " + " | ".join(cells) + f" | {ratio} |")
print()
for v in (A, B):
    print(f"* {v}: {within[v][0]} of {within[v][1]} found deployments (opt-*) within 10 % (median of the runs vs the prediction)")
