"""1-thread steps of 2-thread deployments: the first after a 2-thread step, and those after a 1-thread step.
usage: python3 t1_after.py STEPS.csv[.gz] ..."""
import csv, gzip, sys, collections
sys.path.insert(0, __import__('os').path.join(__import__('os').path.dirname(__import__('os').path.abspath(__file__)), '../../../scripts'))
from bench_residuals import pool_of
acc = collections.defaultdict(lambda: [0, 0.0, 0.0])
for f in sys.argv[1:]:
    rows = collections.defaultdict(list)
    for s in csv.DictReader(gzip.open(f, 'rt') if f.endswith('gz') else open(f)):
        rows[(s['model'], s['threads'], s['deployment'])].append(s)
    for k, st in rows.items():
        if k[1] != '2': continue
        prev_threads = 1
        for s in st:
            conv = s['conversion'] == '1'
            if conv and pool_of(s) is None: continue  # relabel
            t = 2 if s['name'].endswith('_t2') else 1
            if t == 1 and not conv:
                cls = (k[0], 'first t1 after t2' if prev_threads == 2 else 't1 after t1')
                a = acc[cls]; a[0] += 1; a[1] += float(s['measured_ms']); a[2] += max(0, float(s['lut_ms']))
            prev_threads = t
for k in sorted(acc):
    n, m, l = acc[k]
    print(f"{k[0]:18s} {k[1]:20s} n={n:4d} measured {m:7.3f} LUT {l:7.3f}  {100*(m-l)/l:+5.1f}%")
