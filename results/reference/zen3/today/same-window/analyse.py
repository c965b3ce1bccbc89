"""Per window, thread count, deployment and library: the network's summed step times over the
old LUT's, the fresh LUT's, and (where the cycle build ran) the interleaved cold and warm
medians' figures, each over the steps that have it. usage: python3 analyse.py [steps.csv]"""
import csv, sys, collections

rows = list(csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else 'steps.csv')))
tot = collections.defaultdict(collections.Counter)
for r in rows:
    lib = r['name'].split('_')[3]
    for key in ((r['window'], r['model'], r['threads'], r['deployment'], 'all'),
                (r['window'], r['model'], r['threads'], r['deployment'], lib)):
        t = tot[key]
        net = float(r['net_ms'])
        t['n'] += 1
        t['net'] += net
        t['old'] += float(r['old_lut_ms'])
        t['fresh'] += float(r['fresh_lut_ms'])
        if r['cold30_ms']:
            t['cyc_net'] += net
            t['cold'] += float(r['cold30_ms'])
            t['warm'] += float(r['warm30_ms'])


def ratio(a, b):
    return '%.2f' % (a / b) if b else '-'


print('| window | model | threads | deployment | library | steps | net ms | net / old LUT | net / fresh LUT | net / cold (30 interleaved) | net / warm (30 interleaved) |')
print('|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|')
for key in sorted(tot):
    if key[4] not in ('all', 'onednn'):
        continue
    t = tot[key]
    print('| ' + ' | '.join(key) + ' | %d | %.3f | %s | %s | %s | %s |' % (
        t['n'], t['net'], ratio(t['net'], t['old']), ratio(t['net'], t['fresh']),
        ratio(t['cyc_net'], t['cold']), ratio(t['cyc_net'], t['warm'])))
