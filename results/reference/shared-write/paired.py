"""Paired A/B: per round, a deployment's measurement with LUT a over the same label's with LUT b, the
two runs back to back (run.sh alternates their order by round). usage: paired.py DIR"""
import csv, glob, os, re, statistics, sys
d = sys.argv[1]
m = {}
for f in glob.glob(os.path.join(d, '*.r*.csv')):
    if f.endswith('.steps.csv'): continue
    g = re.match(r'(.+)\.([ab])\.r(\d+)\.csv', os.path.basename(f))
    for r in csv.DictReader(open(f)):
        if r['status'] == 'ok': m[(g.group(1), r['deployment'], int(g.group(3)), g.group(2))] = (float(r['measured_ms']), float(r['core_link_ns']))
print('| model | deployment | a / b per round (links a, b in ns) | median a / b |')
print('|---|---|---|---:|')
for model, dep in sorted({(k[0], k[1]) for k in m}):
    rs = sorted({k[2] for k in m if k[0] == model and k[1] == dep and (model, dep, k[2], 'a') in m and (model, dep, k[2], 'b') in m})
    q = [(m[(model, dep, r, 'a')][0] / m[(model, dep, r, 'b')][0], m[(model, dep, r, 'a')][1], m[(model, dep, r, 'b')][1]) for r in rs]
    print(f"| {model} | {dep} | {', '.join(f'{x:.3f} ({la:.0f}, {lb:.0f})' for x, la, lb in q)} | {statistics.median(x for x, _, _ in q):.3f} |")
