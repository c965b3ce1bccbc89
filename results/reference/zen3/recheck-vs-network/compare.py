#!/usr/bin/env python3
"""Per model and deployment: the oneDNN f32 (and other) layer steps of `bench --steps` (OUT/a),
summed per library: profile a's figure (the LUT the bench used), the network's mean over the
rounds, the recheck's, and profile b's (taken right after the bench), all as ratios to a.
usage: compare.py OUT"""
import collections, csv, json, sys

def lut_cost(path):
    lut = json.load(open(path))
    cost = {}
    for i, layer in enumerate(lut["layers"]):
        for m in layer.get("impls", []):
            lat = m.get("latency_ms") or {}
            if m.get("status") == "ok" and lat:
                cost[(i, m["name"])] = lat.get("mean", lat.get("median"))
    return cost

out = sys.argv[1]
models = sorted({p.split("/")[-1].split(".")[0] for p in __import__("glob").glob(out + "/a/*.steps.csv")})
print("| model | deployment | library | steps | a ms | network mean / a | recheck / a | b / a | recheck / network |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|")
for m in models:
    b = lut_cost(f"{out}/b/{m}.lut.json")
    acc = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0])
    for r in csv.DictReader(open(f"{out}/a/{m}.steps.csv")):
        if r["conversion"] == "1" or float(r["recheck_ms"]) < 0 or float(r["lut_ms"]) <= 0: continue
        lib = r["name"].split("_")[3] if r["name"].count("_") >= 4 else "?"
        bb = b.get((int(r["layer"]), r["name"]))
        if bb is None: continue
        a = acc[(r["deployment"], lib)]
        a[0] += 1; a[1] += float(r["lut_ms"]); a[2] += float(r["mean_ms"]); a[3] += float(r["recheck_ms"]); a[4] += bb
    for (d, lib), (n, la, net, rc, lb) in sorted(acc.items()):
        if la < 0.05: continue
        print(f"| {m} | {d} | {lib} | {n} | {la:.3f} | {net / la:.3f} | {rc / la:.3f} | {lb / la:.3f} | {rc / net:.3f} |")
