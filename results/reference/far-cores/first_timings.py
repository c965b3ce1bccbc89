#!/usr/bin/env python3
"""What the found deployments would have been predicted at with the first (far) timings of
the implementations the profile timed again near: the same deployment, its steps' LUT
figures put back to the first timing (the search might have chosen otherwise).

usage: first_timings.py PROFILE_LOG LUT_DIR BENCH_DIR
PROFILE_LOG: stdout of the five `layerwise profile` runs (recheck/profile.sh), with the
"timed again with the cores near" blocks; BENCH_DIR: MODEL.rN.csv / .steps.csv(.gz)."""
import collections, csv, glob, gzip, json, re, statistics, sys


def retimed(log):
    out, model, block = collections.defaultdict(dict), None, False
    for line in (gzip.open(log, 'rt') if log.endswith('.gz') else open(log)):
        if line.startswith('profiled '):
            model, block = line.split()[1].rstrip(':'), False
        elif line.startswith('timed again with the cores near'):
            block = True
        elif not line.startswith('  '):
            block = False
        elif block:
            m = re.match(r'\s+(\S+)\s+(\S+)\s+(\d+) ns\s+([\d.]+) ->\s+([\d.]+)', line)
            if m:
                out[model][(m.group(1), m.group(2))] = (float(m.group(4)), float(m.group(5)))
    return out


def main(log, lut_dir, bench_dir):
    again = retimed(log)
    print('| model | impls timed again (layers) | median first / again | max |')
    print('|---|---:|---:|---:|')
    for model, rows in again.items():
        r = [a / b for a, b in rows.values() if b > 0]
        print(f'| {model} | {len(rows)} ({len({k[0] for k in rows})}) | {statistics.median(r):.2f} | {max(r):.1f} |')
    print('\n| model | threads | deployment | steps timed again | predicted ms | with first timings | measured ms (median of runs) | gap | gap with first timings | near rounds ms (runs) | gap | gap with first timings |')
    print('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for model in sorted({re.match(r'.*/(\w+)\.r\d\.csv', f).group(1) for f in glob.glob(f'{bench_dir}/*.r?.csv')}):
        names = [l['name'] for l in json.load(open(f'{lut_dir}/luts/{model}.lut.json'))['layers']]
        meas, near = collections.defaultdict(list), collections.defaultdict(list)
        extra, pred, hit = {}, {}, {}
        for f in sorted(glob.glob(f'{bench_dir}/{model}.r?.csv')):
            for row in csv.DictReader(open(f)):
                if row['status'] == 'ok':
                    meas[(row['threads'], row['deployment'])].append(float(row['measured_ms']))
                    if float(row['measured_near_ms']) > 0:
                        near[(row['threads'], row['deployment'])].append(float(row['measured_near_ms']))
                    pred[(row['threads'], row['deployment'])] = float(row['predicted_ms'])
        f = sorted(glob.glob(f'{bench_dir}/{model}.r1.steps.csv*'))[0]
        for s in csv.DictReader(gzip.open(f, 'rt') if f.endswith('.gz') else open(f)):
            key = (s['threads'], s['deployment'])
            k = (names[int(s['layer'])], s['name'])
            if s['conversion'] == '0' and k in again.get(model, {}):
                first, a = again[model][k]
                extra[key] = extra.get(key, 0) + first - a
                hit[key] = hit.get(key, 0) + 1
        for key in sorted(pred):
            if key[0] != '2':
                continue
            m = statistics.median(meas[key])
            p, e = pred[key], extra.get(key, 0)
            line = (f'| {model} | {key[0]} | {key[1]} | {hit.get(key, 0)} | {p:.2f} | {p + e:.2f} | {m:.2f} | '
                    f'{100 * (m / p - 1):+.1f} % | {100 * (m / (p + e) - 1):+.1f} % |')
            if near[key]:
                n = statistics.median(near[key])
                line += f' {n:.2f} ({len(near[key])}) | {100 * (n / p - 1):+.1f} % | {100 * (n / (p + e) - 1):+.1f} % |'
            else:
                line += ' - | | |'
            print(line)


if __name__ == '__main__':
    main(*sys.argv[1:])
