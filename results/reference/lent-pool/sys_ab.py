#!/usr/bin/env python3
"""The whole change against the build before it, alternating per model in one window (sys/ab.sh):
per model and deployment, predicted and measured (median over the near rounds when some were far).
usage: python3 sys_ab.py DIR"""
import csv, glob, os, sys
d = sys.argv[1]
print("| model | deployment | before: predicted, measured ms (gap) | after: predicted, measured ms (gap) | after vs before |")
print("|---|---|---|---|---:|")
within = {"old": 0, "new": 0}; n = 0
for m in ["squeezenet1_1", "mobilenetv2", "mobilenetv3_large", "googlenet", "resnet50"]:
    rows = {v: {r["deployment"]: r for r in csv.DictReader(open(f"{d}/{m}.{v}.csv"))} for v in ("old", "new")}
    for dep in rows["old"]:
        cells, meas = [], {}
        for v in ("old", "new"):
            r = rows[v][dep]; p = float(r["predicted_ms"])
            x = float(r["measured_near_ms"]) if int(r["near_rounds"]) >= 3 else float(r["measured_ms"])
            meas[v] = x; g = 100 * (x - p) / p; within[v] += abs(g) <= 10
            cells.append(f"{p:.3f}, {x:.3f} ({g:+.1f} %, {r['near_rounds']} near)")
        n += 1
        print(f"| {m} | {dep} | {cells[0]} | {cells[1]} | {100 * (meas['new'] - meas['old']) / meas['old']:+.1f} % |")
print(f"\n* before: {within['old']} of {n} within 10 %; after: {within['new']} of {n}")
