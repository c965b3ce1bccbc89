"""The hand-off steps of 2-thread deployments in bench --steps CSVs (gzipped), shared by pairs.py
and charged.py: a step on a cpu1 pool other than the step before it (a 1-thread step counts as
the caller's pool; a thread-set relabel, which runs nothing on cpu1, is skipped)."""
import collections, csv, gzip, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../scripts'))
from bench_residuals import pool_of


def handoffs(paths):
    """Yields (model, previous pool, pool, measured ms, LUT ms) per hand-off step."""
    for f in paths:
        rows = collections.defaultdict(list)
        for s in csv.DictReader(gzip.open(f, 'rt')):
            if s['threads'] == '2': rows[(s['model'], s['deployment'])].append(s)
        for (model, _), st in rows.items():
            prev = 'caller'
            for s in st:
                p = pool_of(s)
                if s['name'].endswith('_t1') and s['conversion'] == '0': q = 'caller'
                elif p is None: continue   # relabel: no step on cpu1
                else: q = p
                if q != prev and q != 'caller':
                    yield model, prev, q, float(s['measured_ms']), max(0.0, float(s['lut_ms']))
                prev = q
