"""Hand-off steps' excess over the LUT by pair and step length: median of the per-step medians and mean of the per-step
means, over bench --steps CSVs (a step on another cpu1 pool than the one before it, as ../handoff-item/handoff_steps.py).
usage: python3 pairs_mean.py ../far-cores/run3/*.steps.csv.gz ../far-cores/run4/*.steps.csv.gz"""
import collections, csv, gzip, os, statistics, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../scripts'))
from bench_residuals import pool_of
acc = collections.defaultdict(list)
for f in sys.argv[1:]:
    rows = collections.defaultdict(list)
    for s in csv.DictReader(gzip.open(f, 'rt')):
        if s['threads'] == '2': rows[(s['model'], s['deployment'])].append(s)
    for _, st in rows.items():
        prev = 'caller'
        for s in st:
            p = pool_of(s)
            if s['name'].endswith('_t1') and s['conversion'] == '0': q = 'caller'
            elif p is None: continue
            else: q = p
            if q != prev and q != 'caller':
                l = max(0.0, float(s['lut_ms']))
                b = 'S<30' if l < .03 else 'S<60' if l < .06 else 'S<120' if l < .12 else 'S<250' if l < .25 else 'S>=250'
                acc[(prev, q, b)].append(((float(s['measured_ms']) - l) * 1000, (float(s['mean_ms']) - l) * 1000, int(s['alone_rounds']), int(s['rounds'])))
            prev = q
for k in sorted(acc):
    v = acc[k]
    print(f"{k[0]:>8s}>{k[1]:<8s} {k[2]:7s} n={len(v):3d} excess: median of medians {statistics.median(x[0] for x in v):6.1f} us, mean of means {statistics.mean(x[1] for x in v):6.1f} us; caller alone {sum(x[2] for x in v)}/{sum(x[3] for x in v)}")
