#!/usr/bin/env python3
"""a (profiled LUT) against b (the same LUT after `lut refine`): per model, thread count and
deployment, the prediction, the three measurements and the median gap, then the count within
10 % per thread count. Usage: compare.py OUT (run.sh's folder)."""
import collections, csv, os, statistics, sys
out = sys.argv[1]
print("| model | threads | deployment | LUT | predicted ms | measured ms (3 benches) | gap (median) |")
print("|---|---:|---|---|---:|---|---:|")
within, total = collections.Counter(), collections.Counter()
for m in ("resnet50", "mobilenetv2", "mobilenetv3_large", "squeezenet1_1", "googlenet"):
    if not os.path.exists(f"{out}/a/{m}.1.csv"):
        continue
    rows = {v: [r for k in (1, 2, 3) for r in csv.DictReader(open(f"{out}/{v}/{m}.{k}.csv")) if r["status"] == "ok"]
            for v in ("a", "b")}
    for t in sorted({r["threads"] for r in rows["a"]}):
        for dep in ("opt-fp32", "opt-int8", "opt-mixed"):
            for v in ("a", "b"):
                rs = [r for r in rows[v] if r["threads"] == t and r["deployment"] == dep]
                if not rs:
                    continue
                p = statistics.median(float(r["predicted_ms"]) for r in rs)
                g = statistics.median(100 * (float(r["measured_ms"]) / float(r["predicted_ms"]) - 1) for r in rs)
                within[(t, v)] += abs(g) <= 10
                total[(t, v)] += 1
                meas = " / ".join(f"{float(r['measured_ms']):.2f}" for r in rs)
                print(f"| {m} | {t} | {dep} | {'profiled' if v == 'a' else 'refined'} | {p:.2f} | {meas} | {g:+.1f} % |")
print()
for t in sorted({t for t, _ in total}):
    print(f"* {t} thread(s): within 10 %: profiled {within[(t, 'a')]} of {total[(t, 'a')]}, "
          f"refined {within[(t, 'b')]} of {total[(t, 'b')]}")
