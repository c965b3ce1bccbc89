"""Per model, deployment and LUT set (a: inputs written back in halves + both shared-line rates;
b: inputs read back, the write rate only): each round's measured over predicted and over
rechecked, the core link, and how many runs are within 10 %. Usage: python3 analyse.py DIR"""
import csv, glob, re, sys, collections, statistics as st

runs = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/*.[ab].r*.csv')):
    if f.endswith('steps.csv'):
        continue
    m, v, r = re.match(r'.*/(.*)\.([ab])\.r(\d+)\.csv', f).groups()
    for d in csv.DictReader(open(f)):
        meas, pred, rc = float(d['measured_ms']), float(d['predicted_ms']), float(d['recheck_ms'])
        runs[(m, d['deployment'], v)].append((int(r), float(d['core_link_ns']), pred, rc, meas,
                                                float(d['shared_write_ms'])))
print('| model | deployment | LUT | predicted ms | shared lines ms | rounds: measured vs predicted (link ns) | median | within 10 % | vs rechecked, median | within 10 % |')
print('|---|---|---|---:|---:|---|---:|---:|---:|---:|')
tot = collections.Counter()
for (m, dep, v), rs in sorted(runs.items()):
    rs.sort()
    ep = [x[4] / x[2] - 1 for x in rs]
    er = [x[4] / x[3] - 1 for x in rs]
    w_p = sum(abs(e) <= 0.1 for e in ep)
    w_r = sum(abs(e) <= 0.1 for e in er)
    tot[(v, 'p')] += w_p; tot[(v, 'r')] += w_r; tot[(v, 'n')] += len(rs)
    cells = ' '.join('%+.0f%% (%.0f)' % (100 * e, x[1]) for e, x in zip(ep, rs))
    print('| %s | %s | %s | %.2f | %.3f | %s | %+.1f %% | %d of %d | %+.1f %% | %d of %d |' % (
        m, dep, v, rs[0][2], rs[0][5], cells, 100 * st.median(ep), w_p, len(rs), 100 * st.median(er), w_r, len(rs)))
for v in 'ab':
    print('\n%s: within 10 %% of the prediction %d of %d runs, of the rechecked prediction %d of %d' % (
        v, tot[(v, 'p')], tot[(v, 'n')], tot[(v, 'r')], tot[(v, 'n')]))
