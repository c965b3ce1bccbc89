#!/usr/bin/env python3
"""Per 2-thread step of one deployment (bench --steps): the network's median, the LUT's figure,
the recheck's, and over all of the layer's implementations timed at both thread counts the
median of t2 / t1 (their 2-thread figure over the same implementation's 1-thread one). A layer
timed while the two vCPUs computed as one core has every 2-thread figure near its 1-thread one
(t2 / t1 ~0.9-1.0 instead of ~0.5-0.7).
usage: t2_over_t1.py LUT.json steps.csv[.gz] [deployment, default opt-fp32]"""
import csv, gzip, json, statistics, sys

lut = json.load(open(sys.argv[1]))
opener = gzip.open if sys.argv[2].endswith('.gz') else open
dep = sys.argv[3] if len(sys.argv) > 3 else 'opt-fp32'
rows = [r for r in csv.DictReader(opener(sys.argv[2], 'rt'))
        if r['threads'] == '2' and r['deployment'] == dep and r['conversion'] == '0' and r['name'].endswith('_t2')]
print('%4s %-24s %-44s %8s %8s %8s %6s %5s' % ('i', 'layer', 'implementation', 'network', 'LUT', 'recheck', 't2/t1', 'pairs'))
for r in rows:
    i = int(r['layer'])
    layer = lut['layers'][i]
    ok = {m['name']: m['latency_ms'].get('mean', m['latency_ms'].get('median')) for m in layer['impls']
          if m.get('status', 'ok') == 'ok' and m.get('latency_ms', {}).get('median')}
    ratios = [ms / ok[n[:-1] + '1'] for n, ms in ok.items() if n.endswith('_t2') and ok.get(n[:-1] + '1')]
    med = statistics.median(ratios) if ratios else float('nan')
    flag = '  <- t2 ~ t1' if med > 0.85 else ''
    print('%4d %-24s %-44s %8.4f %8.4f %8s %6.2f %5d%s' % (i, layer['name'][:24], r['name'][:44], float(r['measured_ms']),
          float(r['lut_ms']), r['recheck_ms'][:8], med, len(ratios), flag))
