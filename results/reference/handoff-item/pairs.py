"""In-network hand-off excess (measured - LUT) of 2-thread steps by (previous pool, pool, step length), over bench --steps CSVs.
usage: python3 pairs.py ../int8-flush/full-run/pred/*.steps.csv.gz"""
import collections, statistics, sys
from handoff_steps import handoffs
acc = collections.defaultdict(list)
for _, prev, q, m, l in handoffs(sys.argv[1:]):
    b = 'S<30' if l < .03 else 'S<60' if l < .06 else 'S<120' if l < .12 else 'S<250' if l < .25 else 'S>=250'
    acc[(prev, q, b)].append((m - l)*1000)
for k in sorted(acc):
    v = acc[k]; print(f"{k[0]:>8s}>{k[1]:<8s} {k[2]:7s} n={len(v):3d} median excess {statistics.median(v):6.1f} us  p25 {sorted(v)[len(v)//4]:6.1f}")
