#!/usr/bin/env python3
"""Steps of the found deployments by library and dtype: summed measured vs summed LUT time
(M.r1.steps.csv.gz of `bench --steps`), per thread count. Conversions count as 'convert'.
--recheck: also the summed rechecked time of the layer steps (bench --recheck; conversions
are not rechecked) against their LUT time.
--mean: the measured column sums each step's mean over the rounds (mean_ms) instead of its
median (measured_ms). The LUT's and the rechecked figures are means since 2026-11-28
(LatencyStats::cost_ms), so on LUTs from then on the fair comparison is --mean: without it a
step whose rounds have slow tails reads below its LUT figure and below the recheck."""
import collections, csv, glob, gzip, sys
recheck = "--recheck" in sys.argv
measured = "mean_ms" if "--mean" in sys.argv else "measured_ms"
acc = collections.defaultdict(lambda: [0.0, 0.0, 0, 0.0, 0.0])
for f in sorted(glob.glob("*.steps.csv.gz")):
    for r in csv.DictReader(gzip.open(f, "rt")):
        n = r["name"].split("_")
        key = "convert" if n[0] == "convert" else f"{n[3]} {n[2]}" if len(n) > 3 else n[0]
        a = acc[(r["threads"], key)]
        a[0] += float(r[measured]); a[1] += float(r["lut_ms"]); a[2] += 1
        if float(r.get("recheck_ms") or -1) >= 0:
            a[3] += float(r["recheck_ms"]); a[4] += float(r["lut_ms"])
extra = (" rechecked / LUT |", "---:|") if recheck else ("", "")
print(f"| threads | library dtype | steps | measured ms (sum of {'means' if measured == 'mean_ms' else 'medians'}) | LUT ms (sum) | measured / LUT |" + extra[0])
print("|---:|---|---:|---:|---:|---:|" + extra[1])
for (t, k), (m, l, c, rc, rl) in sorted(acc.items(), key=lambda x: (x[0][0], -x[1][1])):
    if l > 0.05:
        more = (f" {rc / rl:.2f} |" if rl > 0 else " - |") if recheck else ""
        print(f"| {t} | {k} | {c} | {m:.2f} | {l:.2f} | {m / l:.2f} |" + more)
