import csv, glob, collections, statistics, sys
root = sys.argv[1] if len(sys.argv) > 1 else __import__('os').path.dirname(__import__('os').path.abspath(__file__))
res = collections.defaultdict(list)
for S in 'AB':
    for f in sorted(glob.glob(f'{root}/{S}/*.r[0-9].csv')):
        for r in csv.DictReader(open(f)):
            if r['status'] != 'ok': continue
            p, m, rc = float(r['predicted_ms']), float(r['measured_ms']), float(r['recheck_ms'])
            res[(r['model'], r['deployment'], S)].append((p, m, rc))
print("| model | deployment | A predicted | A measured | A gap % | A vs recheck % | B predicted | B measured | B gap % | B vs recheck % |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
keys = sorted({(k[0], k[1]) for k in res})
within = collections.Counter()
for mo, d in keys:
    cells = []
    for S in 'AB':
        v = res.get((mo, d, S), [])
        if not v: cells += ['-'] * 4; continue
        p = statistics.median(x[0] for x in v); m = statistics.median(x[1] for x in v)
        g = statistics.median(100 * (x[1] - x[0]) / x[0] for x in v); gr = statistics.median(100 * (x[1] - x[2]) / x[2] for x in v)
        within[S] += abs(g) <= 10; within[S + 'r'] += abs(gr) <= 10
        cells += [f'{p:.3f}', f'{m:.3f}', f'{g:+.1f}', f'{gr:+.1f}']
    print(f"| {mo} | {d} | " + " | ".join(cells) + " |")
print(f"\nwithin 10 %: A {within['A']}, B {within['B']}; of the rechecked prediction: A {within['Ar']}, B {within['Br']} (of {len(keys)})")
