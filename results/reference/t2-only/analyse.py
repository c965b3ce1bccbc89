#!/usr/bin/env python3
"""run.sh's bench rounds at 2 threads: per model and deployment, with the full LUT (a) and the
copy without 1-thread implementations (o): the prediction, both rounds' measurements, the gap,
the model error (measured vs rechecked), the deployment's 1-thread steps, and o's speed against a
(each round's o run over the a run just before it).
usage: analyse.py DIR (run.sh's OUT)"""
import collections, csv, gzip, os, statistics, sys

d = sys.argv[1]
def steps_file(p): return open(p) if os.path.exists(p) else gzip.open(p + ".gz", "rt")
models = "resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet".split()
rows = collections.defaultdict(list)  # (m, dep, v) -> [(pred, measured, recheck, t1 steps, t1 ms)]
for m in models:
    for v in "ao":
        for r in (1, 2):
            try:
                bench = {x["deployment"]: x for x in csv.DictReader(open(f"{d}/pred/{m}.{v}.r{r}.csv")) if x["threads"] == "2"}
                steps = list(csv.DictReader(steps_file(f"{d}/pred/{m}.{v}.r{r}.steps.csv")))
            except FileNotFoundError:
                continue
            t1 = collections.Counter(); t1ms = collections.Counter()
            for s in steps:
                if s["threads"] == "2" and s["name"].endswith("_t1") and s["conversion"] == "0":
                    t1[s["deployment"]] += 1; t1ms[s["deployment"]] += float(s["measured_ms"])
            for dep, b in bench.items():
                if b["status"] != "ok":
                    continue
                rows[(m, dep, v)].append((float(b["predicted_ms"]), float(b["measured_ms"]), float(b["recheck_ms"] or 0),
                                          t1[dep], t1ms[dep], float(b["speedup_vs_ref"] or 0)))

def gap(x, y): return 100 * (x - y) / y
print("| model | deployment | LUT | predicted ms | measured ms (rounds) | gap | model error | 1-thread steps (ms) | x Ref-FP32 | o / a measured |")
print("|---|---|---|---:|---|---:|---:|---:|---:|---:|")
within = collections.Counter(); total = collections.Counter(); speed = collections.defaultdict(list)
for (m, dep, v), xs in sorted(rows.items(), key=lambda kv: (models.index(kv[0][0]), kv[0][1], kv[0][2])):
    g = statistics.median(gap(x[1], x[0]) for x in xs)
    e = statistics.median(gap(x[1], x[2]) for x in xs if x[2] > 0) if any(x[2] > 0 for x in xs) else float("nan")
    ratio = ""
    if v == "o" and (m, dep, "a") in rows:
        rs = [o[1] / a[1] for o, a in zip(xs, rows[(m, dep, "a")])]
        ratio = " / ".join(f"{x:.3f}" for x in rs)
        if dep != "ref-fp32": speed[dep].extend(rs)
    if dep != "ref-fp32":
        total[v] += 1; within[v] += abs(g) <= 10
    print(f"| {m} | {dep} | {v} | {statistics.median(x[0] for x in xs):.2f} | {' / '.join(f'{x[1]:.2f}' for x in xs)} | "
          f"{g:+.1f} % | {e:+.1f} % | {statistics.median(x[3] for x in xs):.0f} ({statistics.median(x[4] for x in xs):.2f}) | "
          f"{statistics.median(x[5] for x in xs):.2f} | {ratio} |")
print()
for v in sorted(total):
    print(f"* LUT {v}: found deployments (opt-*) predicted within 10 %: {within[v]} of {total[v]}")
for dep, rs in sorted(speed.items()):
    print(f"* {dep}: o / a measured, median {statistics.median(rs):.3f} over {len(rs)} runs ({min(rs):.3f}-{max(rs):.3f})")
