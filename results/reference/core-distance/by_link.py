#!/usr/bin/env python3
"""2-thread bench runs sorted by how far apart the host kept the cores (bench's core-link probe).

usage: python3 by_link.py DIR   (DIR holds M.rN.csv and M.rN.steps.csv of results/reference/recheck/pred.sh)

Per (model, run): the median core link of the rounds (ns) and the far rounds, each deployment's
measured / predicted gap, the gap over the near rounds where the CSV has it (bench since
2026-11-25), and the 2-thread deployments' steps summed against their LUT figures, 1- and
2-thread steps apart (conversions left out). Then the gaps pooled by link: near (< 2x the
profile's) and far runs."""
import collections, csv, glob, gzip, os, statistics, sys

d = sys.argv[1]
pool = collections.defaultdict(list)
print("| model | run | core link ns (profile) | far rounds | deployment | predicted ms | measured ms | gap | near rounds: measured ms, gap | 1-thread steps vs LUT | 2-thread steps vs LUT |")
print("|---|---:|---:|---:|---|---:|---:|---:|---|---:|---:|")
for f in sorted(glob.glob(os.path.join(d, "*.r*.csv"))):
    if ".steps." in f: continue
    model, run = os.path.basename(f).split(".")[:2]
    steps = collections.defaultdict(lambda: [0.0, 0.0])
    sf = next((f[:-4] + e for e in (".steps.csv", ".steps.csv.gz") if os.path.exists(f[:-4] + e)), None)
    if sf:
        for s in csv.DictReader(gzip.open(sf, "rt") if sf.endswith(".gz") else open(sf)):
            if s["threads"] != "2" or s["conversion"] == "1": continue
            t = 2 if s["name"].endswith("_t2") else 1
            a = steps[(s["deployment"], t)]; a[0] += float(s["measured_ms"]); a[1] += max(0.0, float(s["lut_ms"]))
    for r in csv.DictReader(open(f)):
        if r["threads"] != "2" or r["status"] != "ok": continue
        p, m, link, prof = float(r["predicted_ms"]), float(r["measured_ms"]), float(r["core_link_ns"]), float(r["core_link_profile_ns"])
        gap = 100 * (m - p) / p
        near = float(r.get("measured_near_ms") or 0)
        near_txt = f"{r['near_rounds']}: {near:.2f}, {100 * (near - p) / p:+.1f} %" if near > 0 else (f"{r['near_rounds']}: -" if "near_rounds" in r else "-")
        def sg(t):
            a = steps.get((r["deployment"], t))
            return f"{100 * (a[0] - a[1]) / a[1]:+.1f} %" if a and a[1] > 0 else "-"
        far = link > 2 * prof
        pool[("far" if far else "near", "run")].append(gap)
        if near > 0: pool[("near rounds", "run")].append(100 * (near - p) / p)
        print(f"| {model} | {run} | {link:.0f} ({prof:.0f}) | {r['core_link_far_rounds']} | {r['deployment']} | {p:.2f} | {m:.2f} | {gap:+.1f} % | {near_txt} | {sg(1)} | {sg(2)} |")
print()
for k, v in sorted(pool.items()):
    print(f"* {k[0]:11s}: {len(v):2d} deployment runs, median gap {statistics.median(v):+.1f} %, within 10 %: {sum(abs(x) <= 10 for x in v)}")
