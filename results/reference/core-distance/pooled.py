#!/usr/bin/env python3
"""The steps of 2-thread deployments against their LUT figures, pooled over runs whose cores sat
near (median core link <= 2x the profile's) or far, 1- and 2-thread steps apart (conversions
left out). usage: python3 pooled.py DIR ...   (DIRs of M.rN.csv + M.rN.steps.csv.gz)"""
import collections, csv, glob, gzip, sys
acc = collections.defaultdict(lambda: [0.0, 0.0, 0])
for d in sys.argv[1:]:
    for f in glob.glob(d + "/*.r*.csv"):
        if ".steps." in f: continue
        r2 = [r for r in csv.DictReader(open(f)) if r["threads"] == "2"]
        far = float(r2[0]["core_link_ns"]) > 2 * float(r2[0]["core_link_profile_ns"])
        for s in csv.DictReader(gzip.open(f[:-4] + ".steps.csv.gz", "rt")):
            if s["threads"] != "2" or s["conversion"] == "1": continue
            t = 2 if s["name"].endswith("_t2") else 1
            a = acc[("far" if far else "near", t)]; a[0] += float(s["measured_ms"]); a[1] += max(0.0, float(s["lut_ms"])); a[2] += 1
for k, (m, l, n) in sorted(acc.items()):
    print(f"{k[0]:4s} runs, {k[1]}-thread steps of 2-thread deployments: n={n:5d} measured {m:7.2f} ms, LUT {l:7.2f} ms, {100 * (m - l) / l:+.1f} %")
