#!/usr/bin/env python3
"""Predicted, rechecked and measured over the prediction runs (M.r1..3.csv of `bench --recheck`).

Per row: the LUT's prediction, the measurements of every run, the median gap measured vs
predicted (the issue's figure), the median drift (rechecked vs predicted: the machine since
profiling) and the median model error (measured vs rechecked: what the cost model misses)."""
import collections, csv, glob, statistics, sys

runs = sorted({f.split(".r")[1].split(".")[0] for f in glob.glob("*.r*.csv") if ".steps." not in f})
print("| model | threads | deployment | predicted ms | measured ms (runs) | gap | drift (rechecked vs predicted) | model error (measured vs rechecked) |")
print("|---|---:|---|---:|---|---:|---:|---:|")
within = collections.Counter()
total = collections.Counter()
for m in "resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet".split():
    acc = collections.defaultdict(list)
    for r in runs:
        try:
            rows = list(csv.DictReader(open(f"{m}.r{r}.csv")))
        except FileNotFoundError:
            continue
        for row in rows:
            if row["status"] == "ok":
                acc[(row["threads"], row["deployment"])].append(
                    (float(row["predicted_ms"]), float(row["measured_ms"]), float(row["recheck_ms"])))
    for (t, d), v in sorted(acc.items()):
        gap = statistics.median(100 * (b - a) / a for a, b, _ in v)
        drift = statistics.median(100 * (c - a) / a for a, _, c in v)
        model = statistics.median(100 * (b - c) / c for _, b, c in v)
        total[t] += 1
        within[t] += abs(gap) <= 10
        within[t + " model"] += abs(model) <= 10
        print(f"| {m} | {t} | {d} | {statistics.median(a for a, _, _ in v):.2f} | "
              f"{' / '.join(f'{b:.2f}' for _, b, _ in v)} | {gap:+.1f} % | {drift:+.1f} % | {model:+.1f} % |")
print()
for t in sorted(total):
    print(f"* {t} thread(s): {within[t]} of {total[t]} within 10 % of the LUT's prediction; "
          f"{within[t + ' model']} of {total[t]} within 10 % of the rechecked prediction", file=sys.stdout)
