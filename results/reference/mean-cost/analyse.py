#!/usr/bin/env python3
"""The mean-cost trial, per model, thread count, deployment and LUT (a: timed alone, b: lut
refine): the prediction planned with the LUT's means (bench's predicted_ms), the same
deployment's prediction with the medians instead (predicted_ms minus, over its layer steps,
the LUT's mean - median; conversions are left as planned), and the measurements.
usage: analyse.py DIR (run.sh's OUT: DIR/luts, DIR/r/luts, DIR/pred)"""
import collections, csv, json, statistics, sys

d = sys.argv[1]
models = "resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet".split()
luts = {}
def lut(v, m):
    if (v, m) not in luts:
        path = f"{d}/luts/{m}.lut.json" if v == "a" else f"{d}/r/luts/{m}.lut.json"
        j = json.load(open(path))
        luts[(v, m)] = [{i["name"]: i["latency_ms"] for i in l["impls"]} for l in j["layers"]]
    return luts[(v, m)]

rows = collections.defaultdict(list)  # (m, t, dep, v) -> [(pred_mean, pred_median, measured, recheck)]
sums = collections.defaultdict(list)  # (t, v) -> [(sum of step medians, sum of step means) / timed]
for m in models:
    for v in "ab":
        for r in (1, 2):
            try:
                bench = {(x["threads"], x["deployment"]): x for x in csv.DictReader(open(f"{d}/pred/{m}.{v}.r{r}.csv"))}
                steps = list(csv.DictReader(open(f"{d}/pred/{m}.{v}.r{r}.steps.csv")))
            except FileNotFoundError:
                continue
            L = lut(v, m)
            acc = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
            for s in steps:
                k = (s["threads"], s["deployment"])
                acc[k][1] += float(s["measured_ms"])
                acc[k][2] += float(s["mean_ms"])
                if s["conversion"] == "1":
                    continue
                lm = L[int(s["layer"])].get(s["name"])
                if lm and lm.get("mean"):
                    acc[k][0] += lm["mean"] - lm["median"]
            for k, b in bench.items():
                if b["status"] != "ok":
                    continue
                p = float(b["predicted_ms"])
                rows[(m, k[0], k[1], v)].append((p, p - acc[k][0], float(b["measured_ms"]), float(b["recheck_ms"])))
                sums[(k[0], v)].append((acc[k][1] / float(b["timed_ms"]), acc[k][2] / float(b["timed_ms"])))

def gap(x, y): return 100 * (x - y) / y
print("| model | threads | deployment | LUT | predicted (means) ms | predicted (medians) ms | measured ms (runs) | gap (means) | gap (medians) | model error (measured vs rechecked) |")
print("|---|---:|---|---|---:|---:|---|---:|---:|---:|")
within = collections.Counter(); total = collections.Counter()
for (m, t, dep, v), xs in sorted(rows.items(), key=lambda kv: (models.index(kv[0][0]), kv[0][1], kv[0][3], kv[0][2])):
    g = statistics.median(gap(x[2], x[0]) for x in xs)
    g0 = statistics.median(gap(x[2], x[1]) for x in xs)
    e = statistics.median(gap(x[2], x[3]) for x in xs)
    total[(t, v)] += 1
    within[(t, v, "mean")] += abs(g) <= 10
    within[(t, v, "median")] += abs(g0) <= 10
    within[(t, v, "model")] += abs(e) <= 10
    print(f"| {m} | {t} | {dep} | {v} | {statistics.median(x[0] for x in xs):.2f} | {statistics.median(x[1] for x in xs):.2f} | "
          f"{' / '.join(f'{x[2]:.2f}' for x in xs)} | {g:+.1f} % | {g0:+.1f} % | {e:+.1f} % |")
print()
for (t, v), n in sorted(total.items()):
    print(f"* {t} thread(s), LUT {v}: within 10 %: {within[(t, v, 'mean')]} of {n} planned with means, "
          f"{within[(t, v, 'median')]} of {n} with medians; {within[(t, v, 'model')]} of {n} of the rechecked prediction")
print()
print("In the network (bench --steps, each deployment's timed run): sum of step medians / sum of step means, over the timed run's median")
for (t, v), xs in sorted(sums.items()):
    a = [x[0] for x in xs]; b = [x[1] for x in xs]
    print(f"* {t} thread(s), LUT {v}: medians {min(a):.2f}-{max(a):.2f} (median {statistics.median(a):.2f}), "
          f"means {min(b):.2f}-{max(b):.2f} (median {statistics.median(b):.2f}), {len(xs)} deployment runs")
