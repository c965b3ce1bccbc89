# after / before of the A/B (ab.sh): per model, thread count and deployment, the measured ms of
# each run, the median over runs, the ratio after / before and the speed-up over Ref-FP32 (in
# the same run), plus opt-mixed's SQNR. usage: python3 agg.py D > compare.md
import csv, statistics, sys
D = sys.argv[1]
runs = {}
for v in ('after', 'before'):
    for k in (1, 2):
        try:
            rows = list(csv.DictReader(open(f'{D}/ab.{v}.{k}.csv')))
        except FileNotFoundError:
            continue
        for r in rows:
            runs.setdefault((r['model'], int(r['threads']), r['deployment'], v), []).append(
                (float(r['measured_ms']), float(r['speedup_vs_ref']), float(r['sqnr_db']), float(r['predicted_ms'])))
print('| model | threads | deployment | before ms (runs) | after ms (runs) | after / before | vs Ref-FP32 before | after | SQNR dB before | after | predicted after ms |')
print('|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|')
keys = sorted({k[:3] for k in runs}, key=lambda k: (k[0], k[1], k[2]))
for m, t, dep in keys:
    b, a = runs.get((m, t, dep, 'before'), []), runs.get((m, t, dep, 'after'), [])
    if not a or not b or dep == 'ref-fp32':
        continue
    med = lambda x, i: statistics.median(r[i] for r in x)
    fmt = lambda x: ' / '.join('%.2f' % r[0] for r in x)
    sq = lambda x: '-' if med(x, 2) >= 999 else '%.1f' % med(x, 2)
    print(f'| {m} | {t} | {dep} | {fmt(b)} | {fmt(a)} | {med(a,0)/med(b,0):.2f} | {med(b,1):.2f}x | {med(a,1):.2f}x | {sq(b)} | {sq(a)} | {med(a,3):.2f} |')
