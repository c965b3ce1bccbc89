"""c: thread changes timed as copies; i: in place. Per model and deployment: predicted, each round's
measured (link ns), caller steps, and the paired ratio i/c per round. python3 an.py DIR"""
import csv, glob, re, sys, collections, statistics as st
D = sys.argv[1] if len(sys.argv) > 1 else '.'
runs = collections.defaultdict(dict)
for f in glob.glob(D + '/*.[ci].r*.csv'):
    if f.endswith('steps.csv'): continue
    m, v, r = re.match(r'.*/(.*)\.([ci])\.r(\d+)\.csv', f).groups()
    steps = list(csv.DictReader(open(f.replace('.csv', '.steps.csv')))) if glob.glob(f.replace('.csv', '.steps.csv')) else \
        list(csv.DictReader(__import__('gzip').open(f.replace('.csv', '.steps.csv.gz'), 'rt')))
    for d in csv.DictReader(open(f)):
        caller = sum(1 for s in steps if s['deployment'] == d['deployment'] and s['pool'] == 'caller' and s['conversion'] == '0')
        runs[(m, d['deployment'])][(v, int(r))] = (float(d['predicted_ms']), float(d['measured_ms']), float(d['core_link_ns']), caller)
tot = collections.Counter()
for (m, dep), x in sorted(runs.items()):
    rounds = sorted({r for _, r in x})
    print('%s %s' % (m, dep))
    for v in 'ci':
        rs = [x[(v, r)] for r in rounds if (v, r) in x]
        err = [b / a - 1 for a, b, _, _ in rs]
        w = sum(abs(e) <= 0.1 for e in err); tot[v] += w; tot[v + 'n'] += len(err)
        print('  %s predicted %.3f, caller steps %d, measured %s; median %.3f, vs predicted median %+.1f %%, within 10 %% %d of %d' % (
            v, rs[0][0], rs[0][3], ' '.join('%.3f(%.0f)' % (b, l) for _, b, l, _ in rs), st.median(b for _, b, _, _ in rs),
            100 * st.median(err), w, len(err)))
    pr = [x[('i', r)][1] / x[('c', r)][1] for r in rounds if ('i', r) in x and ('c', r) in x]
    print('  i / c per round: %s; median %.3f' % (' '.join('%.3f' % p for p in pr), st.median(pr)))
print('within 10 %% of the prediction: c %d of %d, i %d of %d' % (tot['c'], tot['cn'], tot['i'], tot['in']))
