#!/usr/bin/env python3
"""Non-conv steps' excess over the LUT, by the step that ran before them (mostly their producer).

usage: after_producer.py THREADS FILE.steps.csv[.gz]...   (bench --steps files; several rounds
of one model are averaged: the figures are per round)"""
import collections, csv, gzip, sys


def rows(path):
    with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
        return list(csv.DictReader(f))


def producer_class(prev):
    if not prev.startswith('conv2d'):
        return 'after a non-conv step'
    if 'onednn' in prev and '_f32_' in prev:
        return 'after a oneDNN f32 conv'
    if 'onednn' in prev:
        return 'after a oneDNN int8/bf16 conv'
    return 'after another conv'


threads, files = sys.argv[1], sys.argv[2:]
excess = collections.defaultdict(lambda: [0.0, 0.0, 0])  # (model, deployment, class) -> measured - lut, lut, steps
rounds = collections.Counter()
for path in files:
    by = collections.defaultdict(list)
    for r in rows(path):
        if r['threads'] == threads:
            by[(r['model'], r['deployment'])].append(r)
    for key, rs in by.items():
        rounds[key] += 1
        rs.sort(key=lambda r: int(r['step']))
        for i, r in enumerate(rs):
            if r['name'].split('_')[0] in ('conv2d', 'fully-connected'):
                continue
            a = excess[key + (producer_class(rs[i - 1]['name'] if i else ''),)]
            a[0] += float(r['mean_ms']) - float(r['lut_ms'])
            a[1] += float(r['lut_ms'])
            a[2] += 1
print('| model | deployment | non-conv steps | steps | measured - LUT ms | LUT ms |')
print('|---|---|---|---:|---:|---:|')
for (model, dep, cls), (d, lut, n) in sorted(excess.items()):
    k = rounds[(model, dep)]
    print(f'| {model} | {dep} | {cls} | {n // k} | {d / k:+.3f} | {lut / k:.3f} |')
