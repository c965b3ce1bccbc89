#!/usr/bin/env python3
"""Sets of prediction runs side by side: per model and deployment, the median gap measured vs
predicted over each set's runs, at 1 thread, and at 2 threads over the near rounds (bench's
measured_near_ms; pred30 has none). usage: python3 cmp.py [LABEL=DIR ...]; without arguments
the f32 count (../pred30, ../pred31) against the int8 count (pred32)."""
import collections, csv, glob, os, statistics, sys
here = os.path.dirname(os.path.abspath(__file__))
sets = dict(a.split("=", 1) for a in sys.argv[1:]) or {
    "f32 count (pred30)": os.path.join(here, "../pred30"), "f32 count (pred31)": os.path.join(here, "../pred31"),
    "int8 count (pred32)": os.path.join(here, "pred32")}
gaps = {}
for name, d in sets.items():
    acc = collections.defaultdict(list)
    for f in glob.glob(d + "/*.r*.csv"):
        if ".steps." in f: continue
        for r in csv.DictReader(open(f)):
            if r["status"] != "ok": continue
            p = float(r["predicted_ms"])
            m = float(r["measured_ms"]) if r["threads"] == "1" else float(r.get("measured_near_ms") or 0)
            if m > 0: acc[(r["model"], r["threads"], r["deployment"])].append(100 * (m - p) / p)
    gaps[name] = {k: statistics.median(v) for k, v in acc.items()}
keys = sorted(set().union(*[g.keys() for g in gaps.values()]), key=lambda k: (k[1], k[0], k[2]))
print("| model | threads | deployment | " + " | ".join(sets) + " |")
print("|---|---:|---|" + "---:|" * len(sets))
for k in keys:
    print(f"| {k[0]} | {k[1]} | {k[2]} | " + " | ".join(f"{gaps[n][k]:+.1f} %" if k in gaps[n] else "-" for n in sets) + " |")
print()
for n in sets:
    for t in ("1", "2"):
        v = [g for k, g in gaps[n].items() if k[1] == t]
        if v: print(f"* {n}, {t} thread(s){' (near rounds)' if t == '2' else ''}: {sum(abs(x) <= 10 for x in v)} of {len(v)} within 10 %")
