#!/usr/bin/env python3
"""opt-fp32 at 1 thread, per model: predicted vs measured for the profiled LUT (a) and the
refined copy (b), each benched in turn (run.sh, more.sh), then the medians. usage: compare.py OUT"""
import statistics
import csv, glob, sys

out = sys.argv[1]
meas = {}
print("| model | LUT | bench | predicted ms | measured ms | gap |")
print("|---|---|---:|---:|---:|---:|")
for path in sorted(glob.glob(out + "/a/*.1.csv")):
    m = path.split("/")[-1].split(".")[0]
    for v, name in (("a", "profiled"), ("b", "refined")):
        for k in sorted(int(f.split(".")[-2]) for f in glob.glob(f"{out}/{v}/{m}.*.csv") if f.split(".")[-2].isdigit()):
            for r in csv.DictReader(open(f"{out}/{v}/{m}.{k}.csv")):
                if r["deployment"] != "opt-fp32": continue
                p, me = float(r["predicted_ms"]), float(r["measured_ms"])
                print(f"| {m} | {name} | {k} | {p:.2f} | {me:.2f} | {100 * (me / p - 1):+.1f} % |")
                meas.setdefault((m, name), (p, []))[1].append(me)
print()
print("| model | LUT | predicted ms | median measured ms (benches) | gap of the median | benches within 10 % |")
print("|---|---|---:|---:|---:|---:|")
for (m, name), (p, ms) in meas.items():
    med = statistics.median(ms)
    within = sum(abs(x / p - 1) <= 0.10 for x in ms)
    print(f"| {m} | {name} | {p:.2f} | {med:.2f} ({len(ms)}) | {100 * (med / p - 1):+.1f} % | {within} of {len(ms)} |")
