#!/usr/bin/env python3
"""The same deployments' steps summed in two LUTs of one model profiled minutes apart.

usage: lut_pair.py A.lut.json B.lut.json steps.csv   (steps.csv: `bench --steps` on LUT A)
Prints, per deployment, the LUT figures of its layer steps summed in A and in B, and B / A;
then B / A over every implementation both LUTs timed. A deployment the search picked from A
(opt-fp32) rising more in B than the single-library ones is the search's selection of
implementations A timed low by chance."""
import csv, json, statistics, sys

def load(path):
    out = {}
    for li, layer in enumerate(json.load(open(path))['layers']):
        for impl in layer['impls']:
            lat = impl.get('latency_ms')
            if isinstance(lat, dict) and impl.get('status') == 'ok':
                out[(li, impl['name'])] = lat.get('mean', lat.get('median'))
    return out

a, b = load(sys.argv[1]), load(sys.argv[2])
steps = [r for r in csv.DictReader(open(sys.argv[3])) if r['conversion'] == '0']
for dep in sorted({r['deployment'] for r in steps}):
    keys = [(int(r['layer']), r['name']) for r in steps if r['deployment'] == dep]
    keys = [k for k in keys if k in a and k in b]
    sa, sb = sum(a[k] for k in keys), sum(b[k] for k in keys)
    print(f"{dep:10s} {len(keys):3d} steps  A {sa:.3f} ms  B {sb:.3f} ms  B/A {sb / sa:.3f}")
print(f"every implementation timed in both: median B/A {statistics.median(b[k] / a[k] for k in a if k in b and a[k] > 0):.3f}")
