#!/usr/bin/env python3
"""Median over rounds of measured vs predicted (with the in-network scale) and vs unscaled."""
import csv, glob, statistics, collections, sys
acc = collections.defaultdict(list)
for f in sorted(glob.glob("*.r*.csv")):
    if ".steps." in f: continue
    for r in csv.DictReader(open(f)):
        if r["status"] != "ok": continue
        acc[(r["model"], r["threads"], r["deployment"])].append(
            (float(r["predicted_ms"]), float(r["unscaled_ms"]), float(r["measured_ms"]), float(r["recheck_ms"])))
print("| model | threads | deployment | predicted ms (scaled) | unscaled ms | measured ms (runs) | gap vs scaled | gap vs unscaled | measured vs rechecked |")
print("|---|---:|---|---:|---:|---|---:|---:|---:|")
w = collections.Counter(); n = collections.Counter()
order = "resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet".split()
for k in sorted(acc, key=lambda k: (order.index(k[0]), k[1], k[2])):
    v = acc[k]
    gs = statistics.median(100 * (m / p - 1) for p, u, m, c in v)
    gu = statistics.median(100 * (m / u - 1) for p, u, m, c in v)
    gc = statistics.median(100 * (m / c - 1) for p, u, m, c in v)
    t = k[1]; n[t] += 1; w[t, "s"] += abs(gs) <= 10; w[t, "u"] += abs(gu) <= 10; w[t, "c"] += abs(gc) <= 10
    print(f"| {k[0]} | {t} | {k[2]} | {v[0][0]:.2f} | {v[0][1]:.2f} | {' / '.join(f'{m:.2f}' for _, _, m, _ in v)} | {gs:+.1f} % | {gu:+.1f} % | {gc:+.1f} % |")
print()
for t in sorted(n):
    print(f"* {t} thread(s): within 10 %: {w[t,'s']} of {n[t]} with the in-network scale, {w[t,'u']} without; {w[t,'c']} of the rechecked")
