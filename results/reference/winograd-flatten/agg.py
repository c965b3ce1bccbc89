# Geomean after / before per tile, activation and thread set (bench_conv medians, CSV).
import csv, math, sys
def load(f):
    return {r[0].replace('_median', '').strip('"'): float(r[3]) for r in csv.reader(open(f))}
b, a = load(sys.argv[1]), load(sys.argv[2])
for t in ['_t1', '_t2']:
    for f in ['f2', 'f4', 'f6']:
        for fu in ['_fused', '']:
            rs = [a[k] / b[k] for k in b if k in a and k.endswith('winograd_' + f + fu + t)]
            if rs:
                g = math.exp(sum(map(math.log, rs)) / len(rs))
                print(f'{t[1:]} {f} {fu[1:] or "plain":5} n={len(rs):2} geomean {g:.3f} min {min(rs):.3f} max {max(rs):.3f}')
