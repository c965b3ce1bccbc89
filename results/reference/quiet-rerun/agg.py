#!/usr/bin/env python3
"""Predicted vs measured over the three prediction runs (M.r1..3.csv): median gap per row."""
import collections, csv, statistics
print("| model | threads | deployment | predicted ms | measured ms (3 runs) | median gap |")
print("|---|---:|---|---:|---|---:|")
for m in "resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet".split():
    acc = collections.defaultdict(list)
    for r in (1, 2, 3):
        for row in csv.DictReader(open(f"{m}.r{r}.csv")):
            if row["status"] == "ok":
                acc[(row["threads"], row["deployment"])].append((float(row["predicted_ms"]), float(row["measured_ms"])))
    for (t, d), v in sorted(acc.items()):
        gap = statistics.median(100 * (b - a) / a for a, b in v)
        print(f"| {m} | {t} | {d} | {statistics.median(a for a, _ in v):.2f} | "
              f"{' / '.join(f'{b:.2f}' for _, b in v)} | {gap:+.1f} % |")
