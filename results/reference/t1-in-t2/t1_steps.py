"""1-thread steps of 1- and 2-thread deployments, measured in the network against their LUT figures, per model.
usage: python3 t1_steps.py STEPS.csv[.gz] ..."""
import csv, gzip, sys, collections
acc = collections.defaultdict(lambda: [0, 0.0, 0.0])
for f in sys.argv[1:]:
    for s in csv.DictReader(gzip.open(f, 'rt') if f.endswith('gz') else open(f)):
        if s['conversion'] == '1': continue
        t = 2 if s['name'].endswith('_t2') else 1
        a = acc[(s['model'], 'dep t' + s['threads'], 'step t%d' % t)]; a[0] += 1; a[1] += float(s['measured_ms']); a[2] += max(0, float(s['lut_ms']))
for k in sorted(acc):
    n, m, l = acc[k]
    print(f"{k[0]:18s} {k[1]} {k[2]} n={n:4d} measured {m:8.3f} LUT {l:8.3f}  {100*(m-l)/l:+5.1f}%")
