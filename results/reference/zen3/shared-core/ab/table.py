#!/usr/bin/env python3
"""The A/B's rows: per arm and thread count, predicted / measured / rechecked ms of opt-fp32 and
opt-int8 (bench.csv), and for the 2-thread opt-fp32 deployment the big convolutions (network >
0.04 ms) whose layer was timed with its 2-thread implementations at >= 0.8 of their 1-thread
figures (t2_over_t1.py's rule), when the LUT is at hand (LUTS=dir with <arm>.lut.json)."""
import csv, glob, gzip, json, os, statistics, sys
here = os.path.dirname(os.path.abspath(__file__))
luts = os.environ.get('LUTS')
arms = ['before', 'new1', 'old1', 'old2', 'new2', 'old3', 'new3']
print('| arm | build | threads | opt-fp32 predicted / measured / rechecked ms (gap) | opt-int8 (gap) | big convs timed at t2 >= 0.8 t1 |')
print('|---|---|---:|---|---|---:|')
for arm in arms:
    d = os.path.join(here, '..', 'before') if arm == 'before' else os.path.join(here, arm)
    rows = list(csv.DictReader(open(os.path.join(d, 'bench.csv'))))
    shared = ''
    if luts and os.path.exists(os.path.join(luts, arm + '.lut.json')):
        lut = json.load(open(os.path.join(luts, arm + '.lut.json')))
        n = 0
        for r in csv.DictReader(gzip.open(os.path.join(d, 'steps.csv.gz'), 'rt')):
            if r['threads'] != '2' or r['deployment'] != 'opt-fp32' or r['conversion'] != '0' or not r['name'].startswith('conv2d') or float(r['measured_ms']) < 0.04:
                continue
            ok = {m['name']: m['latency_ms'].get('mean', m['latency_ms'].get('median')) for m in lut['layers'][int(r['layer'])]['impls']
                  if m.get('status', 'ok') == 'ok' and m.get('latency_ms', {}).get('median')}
            ratios = [v / ok[k[:-1] + '1'] for k, v in ok.items() if k.endswith('_t2') and ok.get(k[:-1] + '1')]
            n += bool(ratios) and statistics.median(ratios) >= 0.8
        shared = str(n)
    for t in ('1', '2'):
        cells = []
        for dep in ('opt-fp32', 'opt-int8'):
            r = [x for x in rows if x['threads'] == t and x['deployment'] == dep][0]
            p, m, c = float(r['predicted_ms']), float(r['measured_ms']), float(r['recheck_ms'])
            cells.append('%.2f / %.2f / %.2f (%+.1f %%)' % (p, m, c, 100 * (m / p - 1)))
        print('| %s | %s | %s | %s | %s | %s |' % (arm, 'new' if arm.startswith('new') else 'old', t, cells[0], cells[1], shared if t == '2' else ''))
