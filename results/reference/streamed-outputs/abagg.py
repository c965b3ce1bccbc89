#!/usr/bin/env python3
"""The A/B of ab.sh summed: per model and deployment, predicted / measured per round and the
streamed-input charge, LUTs profiled with the model (on/) and without (off/).

usage: abagg.py DIR   (DIR holds on/ and off/ with ab.sh's MODEL.rR.md)"""
import glob, os, re, statistics, sys

d = sys.argv[1]
rows = {}  # (model, deployment, variant) -> [(predicted, measured, streamed)]
for v in ('off', 'on'):
    for path in sorted(glob.glob(os.path.join(d, v, '*.r[0-9].md'))):
        for line in open(path):
            c = [x.strip() for x in line.strip().strip('|').split('|')]
            # the residual table: model | threads | deployment | predicted | measured | caller | shared | streamed | ...
            if len(c) == 11 and c[1] == '1' and c[2].startswith('opt-') and re.match(r'^[0-9.]+$', c[3]):
                rows.setdefault((c[0], c[2], v), []).append((float(c[3]), float(c[4]), float(c[7])))
print('| model | deployment | LUT | predicted ms | measured ms (rounds) | median gap | streamed charged ms |')
print('|---|---|---|---:|---|---:|---:|')
for (m, dep, v), r in sorted(rows.items()):
    gaps = [100 * (meas / pred - 1) for pred, meas, _ in r]
    print(f'| {m} | {dep} | {v} | {r[0][0]:.3f} | {" / ".join(f"{x[1]:.3f}" for x in r)} | '
          f'{statistics.median(gaps):+.1f} % | {r[0][2]:.3f} |')
