# Aggregates the bench runs per model (*.r1.csv, *.r2.csv): predicted vs measured (median of the
# runs' medians), the fastest round, thread CPU time and the sum of the per-step medians.
import csv, glob, statistics as st
rows, steps = {}, {}
for f in sorted(glob.glob('*.r[12].csv')):
    for r in csv.DictReader(open(f)):
        if r['status'] != 'ok':
            print(f, r['deployment'], r['status']); continue
        rows.setdefault((r['model'], int(r['threads']), r['deployment']), []).append(r)
for f in sorted(glob.glob('*.r[12].steps.csv')):
    acc = {}
    for s in csv.DictReader(open(f)):
        k = (s['model'], int(s['threads']), s['deployment'])
        acc[k] = acc.get(k, 0.0) + float(s['measured_ms'])
    for k, v in acc.items(): steps.setdefault(k, []).append(v)
print("| model | threads | deployment | predicted ms | measured ms (runs) | error | min ms | thread CPU ms | step sum + overhead ms (error) | load avg |")
print("|---|---:|---|---:|---|---:|---:|---:|---:|---|")
for k, v in sorted(rows.items()):
    p = float(v[0]['predicted_ms'])
    m = [float(x['measured_ms']) for x in v]
    mm, mn, cc = st.median(m), min(float(x['min_ms']) for x in v), st.median(float(x['cpu_ms']) for x in v)
    ss = st.median(steps.get(k, [0])) + st.median(float(x['overhead_ms']) for x in v)
    print(f"| {k[0]} | {k[1]} | {k[2]} | {p:.3f} | {mm:.3f} ({' / '.join('%.3f' % x for x in m)}) | "
          f"{100 * (mm - p) / p:+.1f} % | {mn:.3f} | {cc:.3f} | {ss:.3f} ({100 * (ss - p) / p:+.1f} %) | "
          f"{'-'.join(x['load_avg'] for x in v)} |")
