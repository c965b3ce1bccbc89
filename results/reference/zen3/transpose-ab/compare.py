#!/usr/bin/env python3
"""Old vs new binary from run.sh's folder: per model and bench k, each deployment's speed-up
over Ref-FP32 in that bench, its conversion time, and the medians over the benches.
usage: compare.py OUT > ab.md"""
import csv, glob, os, re, statistics, sys

out = sys.argv[1]
rows = {}  # (model, variant, k) -> {deployment: row}
for v in ("old", "new"):
    for f in glob.glob(os.path.join(out, v, "*.csv")):
        m = re.match(r"(.+)\.(\d+)\.csv$", os.path.basename(f))
        if not m or m.group(1).endswith(".steps"):
            continue
        with open(f) as fh:
            rows[(m.group(1), v, int(m.group(2)))] = {r["deployment"]: r for r in csv.DictReader(fh)}

models = sorted({k[0] for k in rows})
print("| model | deployment | bench | old: vs Ref-FP32 | new: vs Ref-FP32 | old: measured / predicted ms | new: measured / predicted ms | old: conversions ms | new: conversions ms |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for m in models:
    ks = sorted({k[2] for k in rows if k[0] == m})
    for dep in ("opt-fp32", "opt-int8"):
        med = {"old": [], "new": []}
        for k in ks:
            cells = []
            for v in ("old", "new"):
                r = rows.get((m, v, k), {}).get(dep)
                if not r or r["status"] != "ok":
                    cells.append(None)
                    continue
                med[v].append(float(r["speedup_vs_ref"]))
                cells.append(r)
            if None in cells:
                continue
            o, n = cells
            print(f"| {m} | {dep} | {k} | {float(o['speedup_vs_ref']):.2f}x | {float(n['speedup_vs_ref']):.2f}x | "
                  f"{float(o['measured_ms']):.2f} / {float(o['predicted_ms']):.2f} | {float(n['measured_ms']):.2f} / {float(n['predicted_ms']):.2f} | "
                  f"{float(o['conversion_ms']):.3f} ({o['conversions']}) | {float(n['conversion_ms']):.3f} ({n['conversions']}) |")
        if med["old"] and med["new"]:
            print(f"| {m} | {dep} | median | **{statistics.median(med['old']):.2f}x** | **{statistics.median(med['new']):.2f}x** | | | | |")
