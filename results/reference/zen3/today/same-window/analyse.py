"""Per window, thread count, deployment and library: the network's summed step times over the
old LUT's, the fresh LUT's, and (where the cycle build ran) the interleaved cold and warm
medians' figures, each over the steps that have it. usage: python3 analyse.py [steps.csv]"""
import csv, sys, collections

rows = list(csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else 'steps.csv')))
tot = collections.defaultdict(collections.Counter)
for r in rows:
    lib = r['name'].split('_')[3] + ('-int8' if '_int8_' in r['name'] else '')
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
        if r.get('no_flush30_ms'):
            t['part_net'] += net
            for col in ('no_flush30_ms', 'no_out_read30_ms', 'no_evict30_ms', 'clean_evict30_ms'):
                t[col] += float(r[col])


def ratio(a, b):
    return '%.2f' % (a / b) if b else '-'


print('| window | model | threads | deployment | library | steps | net ms | net / old LUT | net / fresh LUT | net / cold (30 interleaved) | net / warm (30 interleaved) |')
print('|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|')
libs = ('all', 'onednn', 'onednn-int8')
for key in sorted(tot):
    if key[4] not in libs:
        continue
    t = tot[key]
    print('| ' + ' | '.join(key) + ' | %d | %.3f | %s | %s | %s | %s |' % (
        t['n'], t['net'], ratio(t['net'], t['old']), ratio(t['net'], t['fresh']),
        ratio(t['cyc_net'], t['cold']), ratio(t['cyc_net'], t['warm'])))

print()
print('w6 (1 thread), the cycle with one part of the cold preparation left out:')
print()
print('| deployment | library | steps | net / cold | net / no read of other data | net / no output read | net / no eviction | net / clean eviction | net / warm |')
print('|---|---|---:|---:|---:|---:|---:|---:|---:|')
for key in sorted(tot):
    t = tot[key]
    if key[0] != 'w6' or key[4] not in libs or not t['part_net']:
        continue
    print('| %s | %s | %d | %s | %s | %s | %s | %s | %s |' % (key[3], key[4], t['n'], ratio(t['cyc_net'], t['cold']),
          ratio(t['part_net'], t['no_flush30_ms']), ratio(t['part_net'], t['no_out_read30_ms']),
          ratio(t['part_net'], t['no_evict30_ms']), ratio(t['part_net'], t['clean_evict30_ms']), ratio(t['cyc_net'], t['warm'])))

print()
print('w7 (1 thread), oneDNN: the cold preparation with 96 MiB more of other data read before each run:')
print()
print('| deployment | library | steps | net / cold | net / cold + 96 MiB | net / warm |')
print('|---|---|---:|---:|---:|---:|')
big = collections.defaultdict(collections.Counter)
for r in rows:
    if r['window'] == 'w7' and r.get('big_flush30_ms'):
        lib = 'onednn-int8' if '_int8_' in r['name'] else 'onednn'
        b = big[(r['deployment'], lib)]
        b['n'] += 1
        b['net'] += float(r['net_ms'])
        b['cold'] += float(r['cold30_ms'])
        b['big'] += float(r['big_flush30_ms'])
        b['warm'] += float(r['warm30_ms'])
for (dep, lib), b in sorted(big.items()):
    print('| %s | %s | %d | %s | %s | %s |' % (dep, lib, b['n'], ratio(b['net'], b['cold']), ratio(b['net'], b['big']),
                                              ratio(b['net'], b['warm'])))
