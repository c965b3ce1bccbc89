#!/usr/bin/env python3
"""Per round and computing time: the profile's seconds, and each deployment's predicted /
measured ms (bench.csv) with the miss in %."""
import csv, glob, os, statistics
rows = {}
for d in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'r*-c*'))):
    name = os.path.basename(d); c = name.split('-c')[1]
    s = float(open(os.path.join(d, 'profile.s')).read().split()[-1])
    line = [f"{name:8s} profile {s:6.1f} s"]
    for r in csv.DictReader(open(os.path.join(d, 'bench.csv'))):
        if r['status'] != 'ok': continue
        p, m = float(r['predicted_ms']), float(r['measured_ms'])
        miss = 100 * (m - p) / p
        rows.setdefault((c, r['deployment']), []).append(miss)
        line.append(f"{r['deployment']} {p:.2f}/{m:.2f} ({miss:+.1f} %)")
    print('  '.join(line))
for (c, dep), v in sorted(rows.items()):
    print(f"computing {c:>3} us  {dep:9s} miss median {statistics.median(v):+.1f} %  all {', '.join(f'{x:+.1f}' for x in v)}")
