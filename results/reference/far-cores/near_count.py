#!/usr/bin/env python3
"""2-thread deployment runs over the rounds with the cores near (bench's measured_near_ms,
at least 3 near rounds): how many within 10 % of the prediction. usage: near_count.py DIR..."""
import csv, glob, statistics, sys

for d in sys.argv[1:]:
    gaps, far_runs, runs = [], set(), set()
    for f in sorted(glob.glob(f'{d}/*.r?.csv')):
        for row in csv.DictReader(open(f)):
            if row['threads'] != '2' or row['status'] != 'ok':
                continue
            runs.add(f)
            if int(row['core_link_far_rounds']) > 0:
                far_runs.add(f)
            near = float(row['measured_near_ms'])
            if near > 0:
                gaps.append(100 * (near / float(row['predicted_ms']) - 1))
    within = sum(abs(g) < 10 for g in gaps)
    print(f'{d}: model runs with a far round {len(far_runs)} of {len(runs)}; deployment runs with >= 3 near rounds '
          f'{len(gaps)}, within 10 % {within}, median gap {statistics.median(gaps):+.1f} %, '
          f'range {min(gaps):+.1f} ... {max(gaps):+.1f} %')
