"""Per step of a step-timed bench run built with wake-log.patch (LW_WAKE_LOG=1): how many times our cpu1
worker noticed a post it had not seen yet during the step, and how long after that post it noticed it.
A wake noticed after the step ended counts in a later step.
usage: python3 wake.py wake.err.gz"""
import collections, gzip, statistics, sys
d = collections.defaultdict(list)
for l in gzip.open(sys.argv[1], 'rt'):
    if not l.startswith('WAKE'): continue
    _, s, name, n, us, ms = l.split()
    d[(int(s), name)].append((int(n), float(us), float(ms)))
for (s, name), v in sorted(d.items()):
    if '_t2' not in name or 'native' not in name: continue
    ws = [x[1] for x in v if x[0] > 0]
    print(f"{s:3d} {name[:48]:48s} wakes in the step (median) {statistics.median([x[0] for x in v]):2.0f}, "
          f"rounds with one {len(ws):2d} of {len(v)}: after {statistics.median(ws) if ws else float('nan'):6.1f} us median, "
          f"{max(ws) if ws else float('nan'):6.1f} max; step {statistics.median([x[2] for x in v]):.4f} ms")
