#!/usr/bin/env python3
"""ab.csv (bench_conv CSV medians, prefixed by binary and round) -> a markdown table: the best
median of the two rounds for each implementation, old and new, and their ratio."""
import collections, csv, sys

times = collections.defaultdict(lambda: collections.defaultdict(list))
for row in csv.reader(open(sys.argv[1] if len(sys.argv) > 1 else 'ab.csv')):
    binary, name = row[0], row[2].strip('"').replace('_median', '')
    times[name][binary].append(float(row[4]))  # real_time, ms
print('| conv / implementation (1 thread, NHWC) | before ms | after ms | after / before |')
print('|---|---:|---:|---:|')
for name in sorted(times):
    old, new = min(times[name]['old']), min(times[name]['new'])
    print(f'| {name.replace("conv2d_nhwc_f32_native_", "")} | {old:.3f} | {new:.3f} | {new / old:.3f} |')
