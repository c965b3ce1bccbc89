#!/usr/bin/env python3
"""Markdown table of opt-mixed vs Ref-FP32 (and opt-fp32 / opt-int8) from a `layerwise bench` csv."""
import csv, sys

rows = list(csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else "bench.csv")))
by = {(r["model"], r["threads"], r["deployment"]): r for r in rows}
print("| model | threads | ref-fp32 ms | opt-fp32 ms (x ref) | opt-int8 ms (x ref, SQNR dB) | "
      "opt-mixed ms (x ref, SQNR dB) | opt-mixed predicted ms | load avg |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for (m, t, d), r in by.items():
    if d != "ref-fp32":
        continue
    g = lambda l: by.get((m, t, l))
    def cell(l, sqnr=True):
        x = g(l)
        if not x or x["status"] != "ok":
            return "-"
        s = f"{float(x['measured_ms']):.2f} ({float(x['speedup_vs_ref']):.2f}x"
        return s + (f", {float(x['sqnr_db']):.1f})" if sqnr else ")")
    mixed = g("opt-mixed")
    print(f"| {m} | {t} | {float(r['measured_ms']):.2f} | {cell('opt-fp32', False)} | {cell('opt-int8')} | "
          f"{cell('opt-mixed')} | {float(mixed['predicted_ms']):.2f} | {float(mixed['load_avg']):.2f} |")
