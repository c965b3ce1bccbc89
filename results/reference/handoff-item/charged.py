"""What the hand-off matrix charged (old: 20 us items, p28 LUT; new: 150 us items, item-sizes.txt) against the
2-thread hand-off steps excess in the networks (measured - LUT), per model, summed over all runs; "capped":
a take-back pool (native, xnnpack) charged at most the step itself.
usage: python3 charged.py ../int8-flush/full-run/pred/*.steps.csv.gz"""
import csv, gzip, sys, collections, statistics
sys.path.insert(0, __import__('os').path.join(__import__('os').path.dirname(__import__('os').path.abspath(__file__)), '../../../scripts'))
from bench_residuals import pool_of
P = ['caller','native','xnnpack','openmp']
old = {('caller','native'):.0435,('caller','xnnpack'):.0505,('caller','openmp'):.0003,('native','xnnpack'):.013,('native','openmp'):.0141,
       ('xnnpack','native'):.0005,('xnnpack','openmp'):.0275,('openmp','native'):.0153,('openmp','xnnpack'):.0485}
new = {('caller','native'):.072,('caller','xnnpack'):.069,('caller','openmp'):.0005,('native','xnnpack'):.071,('native','openmp'):.05,
       ('xnnpack','native'):.03,('xnnpack','openmp'):.068,('openmp','native'):.153,('openmp','xnnpack'):.053}
def charge(m, fr, to, s, cap):
    d = m.get((fr, to), 0.0)
    return min(d, s) if cap and to != 'openmp' else d
tot = collections.defaultdict(lambda: [0.0]*4)
for f in sys.argv[1:]:
    rows = collections.defaultdict(list)
    for s in csv.DictReader(gzip.open(f, 'rt')):
        if s['threads'] == '2': rows[(s['model'], s['deployment'])].append(s)
    for k, st in rows.items():
        prev = 'caller'
        for s in st:
            p = pool_of(s)
            m = float(s['measured_ms']); l = max(0.0, float(s['lut_ms']))
            if s['name'].endswith('_t1') and s['conversion'] == '0': q = 'caller'
            elif p is None: continue   # relabel: no step on cpu1
            else: q = p
            if q != prev and q != 'caller':
                t = tot[k[0]]
                t[0] += m - l; t[1] += charge(old, prev, q, l, False); t[2] += charge(new, prev, q, l, True); t[3] += charge(new, prev, q, l, False)
            prev = q
for k, t in tot.items():
    print(f"{k:20s} observed excess {t[0]:.3f}  old {t[1]:.3f}  new-capped {t[2]:.3f}  new-uncapped {t[3]:.3f}  (ms over all runs)")
