#!/usr/bin/env python3
"""The step-state experiments' tables from their CSVs (run from this folder): per deployment of
MobileNetV2 at 1 thread, the LUT's figure and the network's per-step medians summed by kind."""
import collections, csv, gzip


def rows(path):
    with gzip.open(path, "rt") as f:
        return list(csv.DictReader(f))


def kind(name):
    if "qc8" in name:
        return "int8 oneDNN conv"
    return "other conv" if name.startswith("conv2d") else "other"


print("## modes/ (LW_EXP: 0 network, 1 own run first, 2 evict first, 3 own run then evict, 6 previous step then evict)")
for dep in ("opt-int8", "opt-fp32"):
    for r in (1, 2, 3):
        data = {m: [x for x in rows(f"modes/s{m}.r{r}.csv.gz") if x["deployment"] == dep] for m in (0, 1, 2, 3, 6)}
        g = collections.defaultdict(collections.Counter)
        for i, x in enumerate(data[0]):
            g[kind(x["name"])]["lut"] += float(x["lut_ms"])
            for m in data:
                g[kind(x["name"])][m] += float(data[m][i]["measured_ms"])
        for k, c in sorted(g.items()):
            print(f"{dep} r{r} {k:17s} LUT {c['lut']:.3f} | network {c[0]:.3f} | own run first {c[1]:.3f} | "
                  f"evict {c[2]:.3f} | own run, evict {c[3]:.3f} | previous step, evict {c[6]:.3f}")

print("\n## age-all/ (base: the landed profile; aged: every layer with weights timed an inference after its weights' read)")
for v in ("base", "aged"):
    g = collections.defaultdict(lambda: [0.0, 0.0])
    for r in (1, 2, 3):
        for x in rows(f"age-all/{v}/s{r}.csv.gz"):
            if x["deployment"] == "opt-int8":
                g[kind(x["name"])][0] += float(x["lut_ms"]) / 3
                g[kind(x["name"])][1] += float(x["measured_ms"]) / 3
    for k, (lut, net) in sorted(g.items()):
        print(f"{v} opt-int8 {k:17s} LUT {lut:.3f} network {net:.3f} ({100 * (net - lut) / lut:+.1f} %)")

print("\n## touch/ (LW_EXP=8: the step's packed weights read just before it)")
for m in (0, 8):
    g = collections.defaultdict(lambda: [0.0, 0.0])
    for r in (1, 2, 3):
        for x in rows(f"touch/s{m}.r{r}.csv.gz"):
            g[(x["deployment"], kind(x["name"]))][0] += float(x["lut_ms"]) / 3
            g[(x["deployment"], kind(x["name"]))][1] += float(x["measured_ms"]) / 3
    for (d, k), (lut, net) in sorted(g.items()):
        print(f"LW_EXP={m} {d} {k:17s} LUT {lut:.3f} network {net:.3f} ({100 * (net - lut) / lut:+.1f} %)")
