"""The A/B of run.sh: per model and deployment, each bench run's prediction and measurement with
the LUT that charges shared writes (a) and without (b), grouped by where the host put the cores
(far: a cache line's round trip > 300 ns during the rounds, near otherwise).
usage: analyse.py DIR  (the folder run.sh wrote)"""
import csv, glob, gzip, os, re, statistics, sys
d = sys.argv[1]
runs = []
for f in sorted(glob.glob(os.path.join(d, '*.r*.csv'))):
    if f.endswith('.steps.csv'): continue
    m = re.match(r'(.+)\.([ab])\.r(\d+)\.csv', os.path.basename(f))
    for r in csv.DictReader(open(f)):
        if r['status'] != 'ok': continue
        sf = f[:-4] + ".steps.csv"
        steps = [s for s in csv.DictReader(open(sf) if os.path.exists(sf) else gzip.open(sf + ".gz", "rt")) if s['deployment'] == r['deployment']]
        caller = sum(1 for s in steps if s['pool'] == 'caller' and s['conversion'] == '0')
        runs.append(dict(model=m.group(1), v=m.group(2), run=int(m.group(3)), dep=r['deployment'],
                         pred=float(r['predicted_ms']), meas=float(r['measured_ms']), link=float(r['core_link_ns']),
                         sw=float(r.get('shared_write_ms') or 0), caller=caller))
print('| model | deployment | cores | LUT | runs | caller steps | shared writes charged ms | predicted ms | measured ms (median of runs) | prediction error per run | within 10 % |')
print('|---|---|---|---|---:|---:|---:|---:|---:|---|---:|')
for model in dict.fromkeys(r['model'] for r in runs):
    for dep in dict.fromkeys(r['dep'] for r in runs if r['model'] == model):
        for where in ('far', 'near'):
            for v in 'ab':
                g = [r for r in runs if r['model'] == model and r['dep'] == dep and r['v'] == v and (r['link'] > 300) == (where == 'far')]
                if not g: continue
                errs = [100 * (r['pred'] / r['meas'] - 1) for r in g]
                print(f"| {model} | {dep} | {where} | {v} | {len(g)} | {g[0]['caller']} | {g[0]['sw']:.3f} | {g[0]['pred']:.3f} | "
                      f"{statistics.median(r['meas'] for r in g):.3f} | {', '.join(f'{e:+.1f}' for e in errs)} | "
                      f"{sum(abs(e) <= 10 for e in errs)} of {len(g)} |")
