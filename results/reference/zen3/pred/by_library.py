#!/usr/bin/env python3
"""Steps of the found deployments by library and dtype: summed measured vs summed LUT time
(M.r1.steps.csv.gz of `bench --steps`), per thread count. Conversions count as 'convert'."""
import collections, csv, glob, gzip
acc = collections.defaultdict(lambda: [0.0, 0.0, 0])
for f in sorted(glob.glob("*.steps.csv.gz")):
    for r in csv.DictReader(gzip.open(f, "rt")):
        n = r["name"].split("_")
        key = "convert" if n[0] == "convert" else f"{n[3]} {n[2]}" if len(n) > 3 else n[0]
        a = acc[(r["threads"], key)]
        a[0] += float(r["measured_ms"]); a[1] += float(r["lut_ms"]); a[2] += 1
print("| threads | library dtype | steps | measured ms (sum) | LUT ms (sum) | measured / LUT |")
print("|---:|---|---:|---:|---:|---:|")
for (t, k), (m, l, c) in sorted(acc.items(), key=lambda x: (x[0][0], -x[1][1])):
    if l > 0.05:
        print(f"| {t} | {k} | {c} | {m:.2f} | {l:.2f} | {m / l:.2f} |")
