#!/usr/bin/env python3
"""Steps of layers that stream their weights (1x1 output map with weights): LUT vs network,
per variant directory (a: aged, b: fresh). Usage: streamers.py DIR..."""
import csv, gzip, glob, json, collections, statistics, sys, os
for d in sys.argv[1:]:
    acc = collections.defaultdict(list)
    for f in sorted(glob.glob(f"{d}/*.r*.steps.csv*")):
        op = gzip.open if f.endswith(".gz") else open
        for r in csv.DictReader(op(f, "rt")):
            if r["conversion"] not in ("0", "", "false"): continue
            n = r["name"]
            if not (n.startswith("fully-connected") or n.startswith("conv2d")): continue
            acc[(r["model"], r["threads"], r["deployment"], r["layer"], n)].append((float(r["lut_ms"]), float(r["measured_ms"])))
    print(f"## {d}")
    for k, v in sorted(acc.items()):
        if not k[4].startswith("fully-connected") and k[0] != "mobilenetv3_large": continue
        lut = v[0][0]; net = statistics.median(x[1] for x in v)
        if k[4].startswith("conv2d") and lut > 0.05: continue
        print(f"{k[0]:18} t{k[1]} {k[2]:9} L{k[3]:>3} {k[4][:52]:52} lut {lut:.4f} net {net:.4f} ({100*(net-lut)/lut:+.0f} %)")
