# Aggregates the three bench runs per model: predicted vs measured (median of 3 runs).
import csv, glob, statistics as st
rows = {}
for f in sorted(glob.glob('*.r[123].csv')):
    for r in csv.DictReader(open(f)):
        if r['status'] != 'ok':
            print(f, r['deployment'], r['status']); continue
        rows.setdefault((r['model'], int(r['threads']), r['deployment']), []).append(r)
print("| model | threads | deployment | predicted ms | measured median ms (runs 1 / 2 / 3) | error | thread CPU ms | error | load avg |")
print("|---|---:|---|---:|---|---:|---:|---:|---|")
for k, v in sorted(rows.items()):
    p = float(v[0]['predicted_ms'])
    m = [float(x['measured_ms']) for x in v]; c = [float(x['cpu_ms']) for x in v]
    mm, cc = st.median(m), st.median(c)
    print(f"| {k[0]} | {k[1]} | {k[2]} | {p:.3f} | {mm:.3f} ({' / '.join('%.3f' % x for x in m)}) | "
          f"{100 * (mm - p) / p:+.1f} % | {cc:.3f} | {100 * (cc - p) / p:+.1f} % | {'-'.join(x['load_avg'] for x in v)} |")
