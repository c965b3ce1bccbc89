#!/usr/bin/env python3
"""Per bench --steps file: the 2-thread deployments' steps summed, conversions and layers apart,
measured (medians over the rounds) against the LUT. usage: python3 steps_sum.py FILE.steps.csv[.gz] ..."""
import collections, csv, gzip, sys
for f in sys.argv[1:]:
    rows = csv.DictReader(gzip.open(f, "rt") if f.endswith(".gz") else open(f))
    acc = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for s in rows:
        if s["threads"] != "2": continue
        a = acc[(s["deployment"], "conversions" if s["conversion"] == "1" else "layers")]
        a[0] += 1; a[1] += float(s["measured_ms"]); a[2] += max(0.0, float(s["lut_ms"]))
    for (d, kind), (n, m, l) in sorted(acc.items()):
        print(f"{f.split('/')[-1]:28s} {d:10s} {kind:11s} n={n:3d} measured {m:6.3f} ms  LUT {l:6.3f} ms")
