#!/usr/bin/env python3
"""ratio.sh's benches: per model and LUT (a profiled, b refined), each bench's opt-fp32 /
Ref-FP32 speed-up (one interleaved run each), opt-fp32's predicted and measured ms; then the
medians. usage: ratio.py OUT"""
import csv, glob, statistics, sys

out = sys.argv[1]
rows = {}
for path in sorted(glob.glob(out + "/[ab]/*.csv")):
    parts = path.split("/")[-1].split(".")
    if len(parts) != 3 or not parts[1].isdigit(): continue
    v, m, k = path.split("/")[-2], parts[0], int(parts[1])
    got = {r["deployment"]: r for r in csv.DictReader(open(path))}
    if "opt-fp32" not in got or "ref-fp32" not in got: continue
    o, ref = got["opt-fp32"], got["ref-fp32"]
    rows.setdefault(m, {}).setdefault(v, {})[k] = (float(ref["measured_ms"]), float(o["measured_ms"]),
                                                 float(o["predicted_ms"]))
print("| model | bench | Ref-FP32 ms (a, b) | opt-fp32 ms, profiled (a) | opt-fp32 ms, refined (b) | speed-up a | speed-up b |")
print("|---|---:|---|---:|---:|---:|---:|")
for m, by in rows.items():
    for k in sorted(set(by.get("a", {})) & set(by.get("b", {}))):
        ra, oa, _ = by["a"][k]
        rb, ob, _ = by["b"][k]
        print(f"| {m} | {k} | {ra:.2f}, {rb:.2f} | {oa:.2f} | {ob:.2f} | {ra / oa:.2f}x | {rb / ob:.2f}x |")
print()
print("| model | LUT | opt-fp32 predicted ms | measured, median | within 10 % | speed-up vs Ref-FP32, median (range) |")
print("|---|---|---:|---:|---:|---|")
for m, by in rows.items():
    for v, name in (("a", "profiled"), ("b", "refined")):
        if v not in by: continue
        xs = list(by[v].values())
        pred = xs[0][2]
        meas = [x[1] for x in xs]
        sp = [x[0] / x[1] for x in xs]
        within = sum(abs(x / pred - 1) <= 0.10 for x in meas)
        print(f"| {m} | {name} | {pred:.2f} | {statistics.median(meas):.2f} ({len(meas)}) | {within} of {len(meas)} | "
              f"{statistics.median(sp):.2f}x ({min(sp):.2f}-{max(sp):.2f}) |")
