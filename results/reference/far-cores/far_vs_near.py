#!/usr/bin/env python3
"""Per-step cost of a far spell: the same deployments' 2-thread steps in bench runs with the
cores far apart (>= 9 of 15 rounds far) against a run of the same LUT with them near (<= 2).

usage: far_vs_near.py BENCH_DIR:LUT_DIR [BENCH_DIR:LUT_DIR ...]
BENCH_DIR holds MODEL.rN.csv and MODEL.rN.steps.csv(.gz) from `bench --steps`; LUT_DIR/luts
the LUTs they used (for the layers' shapes)."""
import collections, csv, glob, gzip, json, re, sys

SIZE = {'f32': 4, 'bf16': 2, 'int8': 1}


def nbytes(shape, dt):
    n = 1
    for s in shape:
        n *= s
    return n * SIZE[dt]


def dtype_of(name):
    for k in ('bf16', 'int8', 'f32'):
        if '_' + k + '_' in name or name.endswith('_' + k):
            return k
    return 'f32'


def steps_of(path):
    gz = path.replace('.csv', '.steps.csv.gz')
    f = gzip.open(gz, 'rt') if glob.glob(gz) else open(path.replace('.csv', '.steps.csv'))
    return list(csv.DictReader(f))


def runs(bench_dir, lut_dir):
    out = []
    for f in sorted(glob.glob(f'{bench_dir}/*.r?.csv')):
        model, r = re.match(r'.*/(\w+)\.(r\d)\.csv', f).groups()
        steps = steps_of(f)
        for row in csv.DictReader(open(f)):
            if row['threads'] != '2' or row['status'] != 'ok':
                continue
            out.append(dict(bench=bench_dir, lut=lut_dir, model=model, r=r, dep=row['deployment'],
                            far=int(row['core_link_far_rounds']), link=float(row['core_link_ns']),
                            measured=float(row['measured_ms']),
                            steps=[s for s in steps if s['threads'] == '2' and s['deployment'] == row['deployment']]))
    return out


LAYERS = {}


def step_bytes(run, step):
    key = (run['lut'], run['model'])
    if key not in LAYERS:
        LAYERS[key] = json.load(open(f'{run["lut"]}/luts/{run["model"]}.lut.json'))['layers']
    layers = LAYERS[key]
    layer = layers[int(step['layer'])]
    name = step['name']
    if step['conversion'] == '1':
        m = re.match(r'convert_\w+?_(f32|bf16|int8)_t\d_to_\w+?_(f32|bf16|int8)_t\d', name)
        return 'conversion', nbytes(layer['out_shape'], m.group(1)) + nbytes(layer['out_shape'], m.group(2))
    dt = dtype_of(name)
    read = sum(nbytes(layers[i]['out_shape'], dt) for i in layer['inputs'])
    return layer['kind'], read + nbytes(layer['out_shape'], dt)


def main(args):
    all_runs = []
    for a in args:
        b, l = a.split(':')
        all_runs += runs(b, l)
    groups = collections.defaultdict(list)
    for x in all_runs:
        groups[(x['bench'], x['model'], x['dep'])].append(x)
    by_class = collections.defaultdict(lambda: [0.0, 0.0, 0, 0])
    print('| model | deployment | far run | link ns | near ms | far ms | far / near | steps far / near |')
    print('|---|---|---|---:|---:|---:|---:|---:|')
    for (bench, model, dep), xs in sorted(groups.items()):
        near = [x for x in xs if x['far'] <= 2]
        for far in (x for x in xs if x['far'] >= 9):
            if not near or len(near[0]['steps']) != len(far['steps']):
                continue
            n = near[0]
            sn_sum = sf_sum = 0.0
            for sn, sf in zip(n['steps'], far['steps']):
                a, b = float(sn['measured_ms']), float(sf['measured_ms'])
                kind, nb = step_bytes(n, sn)
                c = by_class[(kind, sn['pool'])]
                c[0] += a; c[1] += b; c[2] += 1; c[3] += nb
                sn_sum += a; sf_sum += b
            print(f'| {model} | {dep} | {bench.rstrip("/").split("/")[-1]} {far["r"]} | {far["link"]:.0f} | '
                  f'{n["measured"]:.2f} | {far["measured"]:.2f} | {far["measured"] / n["measured"]:.2f} | '
                  f'{sf_sum / sn_sum:.2f} |')
    print('\nBy step kind and pool, summed over those pairs:\n')
    print('| step | pool | steps | near ms | far ms | far / near | extra ns per byte moved |')
    print('|---|---|---:|---:|---:|---:|---:|')
    for (kind, pool), (a, b, k, nb) in sorted(by_class.items(), key=lambda kv: kv[1][0] - kv[1][1]):
        if a < 0.05:
            continue
        print(f'| {kind} | {pool} | {k} | {a:.2f} | {b:.2f} | {b / a:.2f} | {1e6 * (b - a) / nb:.3f} |')


if __name__ == '__main__':
    main(sys.argv[1:])
