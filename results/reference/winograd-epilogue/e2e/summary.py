#!/usr/bin/env python3
"""e2e/bench_{old,new}.r*.csv (or DIR/bench_{old,new}.r*.csv: summary.py DIR) -> medians over the rounds of each deployment's measured ms and
speed-up over Ref-FP32 (measured in the same bench), before (old) and after (new)."""
import collections, csv, glob, os, statistics as st, sys

# The folder of the CSVs: this one, or the one given (../../winograd-gemm/e2e).
here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
runs = collections.defaultdict(list)
for f in sorted(glob.glob(os.path.join(here, 'bench_*.r*.csv'))):
    binary = os.path.basename(f).split('_')[1].split('.')[0]
    for r in csv.DictReader(open(f)):
        runs[(r['model'], r['deployment'], binary)].append(r)
print('| model | deployment | predicted ms before / after | measured ms before / after (median of runs) | x Ref-FP32 before / after (median) |')
print('|---|---|---:|---:|---:|')
for model, dep in sorted({(m, d) for m, d, _ in runs}):
    o, n = runs[(model, dep, 'old')], runs[(model, dep, 'new')]
    med = lambda rs, k: st.median(float(r[k]) for r in rs)
    print(f"| {model} | {dep} | {float(o[0]['predicted_ms']):.2f} / {float(n[0]['predicted_ms']):.2f} | "
          f"{med(o, 'measured_ms'):.2f} / {med(n, 'measured_ms'):.2f} ({len(o)}, {len(n)}) | "
          f"{med(o, 'speedup_vs_ref'):.3f} / {med(n, 'speedup_vs_ref'):.3f} |")
