"""In-network hand-off excess (measured - LUT) of 2-thread steps by (previous pool, pool, step length), over bench --steps CSVs.
usage: python3 pairs.py ../int8-flush/full-run/pred/*.steps.csv.gz"""
import csv, gzip, sys, collections, statistics
sys.path.insert(0, __import__('os').path.join(__import__('os').path.dirname(__import__('os').path.abspath(__file__)), '../../../scripts'))
from bench_residuals import pool_of
acc = collections.defaultdict(list)
for f in sys.argv[1:]:
    rows = collections.defaultdict(list)
    for s in csv.DictReader(gzip.open(f, 'rt')):
        if s['threads'] == '2': rows[(s['model'], s['deployment'])].append(s)
    for k, st in rows.items():
        prev = 'caller'
        for s in st:
            p = pool_of(s); m = float(s['measured_ms']); l = max(0.0, float(s['lut_ms']))
            if s['name'].endswith('_t1') and s['conversion'] == '0': q = 'caller'
            elif p is None: continue
            else: q = p
            if q != prev and q != 'caller':
                b = 'S<30' if l < .03 else 'S<60' if l < .06 else 'S<120' if l < .12 else 'S<250' if l < .25 else 'S>=250'
                acc[(prev, q, b)].append((m - l)*1000)
            prev = q
for k in sorted(acc):
    v = acc[k]; print(f"{k[0]:>8s}>{k[1]:<8s} {k[2]:7s} n={len(v):3d} median excess {statistics.median(v):6.1f} us  p25 {sorted(v)[len(v)//4]:6.1f}")
