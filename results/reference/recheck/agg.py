#!/usr/bin/env python3
"""Predicted, rechecked and measured over the prediction runs (M.r1..3.csv of `bench --recheck`).

Per row: the LUT's prediction, the measurements of every run, the median gap measured vs
predicted (the issue's figure), the median drift (rechecked vs predicted: the machine since
profiling) and the median model error (measured vs rechecked: what the cost model misses).
With a LUT that has the speed probe (env/speed_probe.h; CSVs with at_speed_ms), also the
gap to the prediction at the speed bench probed, and the probe's ratios."""
import collections, csv, glob, statistics, sys

runs = sorted({f.split(".r")[1].split(".")[0] for f in glob.glob("*.r*.csv") if ".steps." not in f})
probed = False
lines = []
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
                at = float(row.get("at_speed_ms") or 0)
                probed |= at > 0
                acc[(row["threads"], row["deployment"])].append(
                    (float(row["predicted_ms"]), float(row["measured_ms"]), float(row["recheck_ms"]), at,
                     float(row.get("speed_ratio_t1") or 0), float(row.get("speed_ratio_t2") or 0)))
    for (t, d), v in sorted(acc.items()):
        gap = statistics.median(100 * (x[1] - x[0]) / x[0] for x in v)
        drift = statistics.median(100 * (x[2] - x[0]) / x[0] for x in v)
        model = statistics.median(100 * (x[1] - x[2]) / x[2] for x in v)
        total[t] += 1
        within[t] += abs(gap) <= 10
        within[t + " model"] += abs(model) <= 10
        line = (f"| {m} | {t} | {d} | {statistics.median(x[0] for x in v):.2f} | "
                f"{' / '.join(f'{x[1]:.2f}' for x in v)} | {gap:+.1f} % | {drift:+.1f} % | {model:+.1f} % |")
        if all(x[3] > 0 for x in v):
            at_gap = statistics.median(100 * (x[1] - x[3]) / x[3] for x in v)
            within[t + " speed"] += abs(at_gap) <= 10
            ratios = " / ".join(f"{x[4]:.3f}" + (f", {x[5]:.3f}" if x[5] > 0 else "") for x in v)
            line += f" {at_gap:+.1f} % | {ratios} |"
        lines.append(line)
head = "| model | threads | deployment | predicted ms | measured ms (runs) | gap | drift (rechecked vs predicted) | model error (measured vs rechecked) |"
rule = "|---|---:|---|---:|---|---:|---:|---:|"
if probed:
    head += " gap to the prediction at the probed speed | probe now / then (t1, t2) per run |"
    rule += "---:|---|"
print(head)
print(rule)
print("\n".join(lines))
print()
for t in sorted(total):
    print(f"* {t} thread(s): {within[t]} of {total[t]} within 10 % of the LUT's prediction; "
          f"{within[t + ' model']} of {total[t]} within 10 % of the rechecked prediction"
          + (f"; {within[t + ' speed']} of {total[t]} within 10 % of the prediction at the probed speed" if probed else ""))
