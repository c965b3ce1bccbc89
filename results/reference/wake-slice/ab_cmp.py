import csv,sys,os
# An A/B pass (pass1/, pass2/): old and new build per model. usage: python3 ab_cmp.py DIR > DIR/cmp.md
os.chdir(sys.argv[1])
print('| model | deployment | predicted ms | old ms (gap, CV) | new ms (gap, CV) | old conversions ms | new conversions ms | core link ns old / new |')
print('|---|---|---:|---:|---:|---:|---:|---:|')
for M in ['mobilenetv2','mobilenetv3_large','squeezenet1_1','googlenet']:
  if not os.path.exists(f'{M}.new.csv'): continue
  o={r['deployment']:r for r in csv.DictReader(open(f'{M}.old.csv'))}
  n={r['deployment']:r for r in csv.DictReader(open(f'{M}.new.csv'))}
  for d in o:
    p=float(o[d]['predicted_ms'])
    f=lambda r:'%.2f (%+.1f %%, %.3f)'%(float(r['measured_ms']),100*(float(r['measured_ms'])/p-1),float(r['cv']))
    print(f"| {M} | {d} | {p:.2f} | {f(o[d])} | {f(n[d])} | {float(o[d]['conversion_ms']):.3f} | {float(n[d]['conversion_ms']):.3f} | {float(o[d]['core_link_ns']):.0f} / {float(n[d]['core_link_ns']):.0f} |")
