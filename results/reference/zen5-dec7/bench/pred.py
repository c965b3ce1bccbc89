#!/usr/bin/env python3
"""Issue 12's prediction target from one interleaved bench: the found deployments (opt-fp32,
opt-int8, opt-mixed) of the five models, measured against the LUT's prediction, per thread cap."""
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else 'bench/bench.csv')))
for t in ('1', '2'):
    within, cells = 0, []
    for r in rows:
        if r['threads'] != t or r['deployment'] not in ('opt-fp32', 'opt-int8', 'opt-mixed') or r['status'] != 'ok':
            continue
        miss = 100 * (float(r['measured_ms']) - float(r['predicted_ms'])) / float(r['predicted_ms'])
        within += abs(miss) <= 10
        cells.append(f"{r['model']} {r['deployment']} {miss:+.1f}")
    print(f"{t} thread(s): {within} of {len(cells)} within 10 %: " + '; '.join(cells))
