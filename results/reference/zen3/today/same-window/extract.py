"""Builds steps.csv from the raw files of the same-window trial (/tmp/q/s1, 2026-11-29):
per 2-thread (and, for mobilenetv2 w5 and w6, 1-thread) step of the found deployments in each bench
run, the network's time (bench --steps: median over 15 interleaved rounds), the 3-hour-old LUT's
figure (what bench planned with), the figure of a LUT profiled minutes before in the same window
(its own means) and, where the cycle build ran, the medians of 30 interleaved runs with the
profile's cold preparation ("cold") and with none, back to back ("warm"); in w6 also with one
part of it left out (no read of the other layers' data, no read of the output, no eviction, a
clean eviction); in w7 with 96 MiB more read before each run (cycle-bigflush.patch).
usage (in /tmp/q/s1): python3 extract.py > steps.csv"""
import csv, json, re, sys

OLD = '/tmp/q/z3/luts/{}.lut.json'
# window, model, fresh LUT, cycle log (or None), bench step files
WINDOWS = [
    ('w1', 'mobilenetv3_large', 'mn3.cyc2.lut.json', 'cyc2.err', ['b1.steps.csv', 'b2.steps.csv']),
    ('w2', 'mobilenetv3_large', 'mn3.cyc3.lut.json', 'cyc3.err', ['b3.steps.csv', 'b4.steps.csv']),
    ('w3', 'mobilenetv2', 'mobilenetv2.cyc.lut.json', 'mobilenetv2.cyc.err',
     ['mobilenetv2.b1.steps.csv', 'mobilenetv2.b2.steps.csv']),
    ('w4', 'squeezenet1_1', 'squeezenet1_1.cyc.lut.json', 'squeezenet1_1.cyc.err',
     ['squeezenet1_1.b1.steps.csv', 'squeezenet1_1.b2.steps.csv']),
    ('w5', 'mobilenetv2', 'mobilenetv2.t12.lut.json', None, ['mobilenetv2.b3.steps.csv']),
    # 1 thread, the cycle with each part of the preparation left out in turn (f, o, e; d: evicted clean)
    ('w6', 'mobilenetv2', 'mobilenetv2.cyc1.lut.json', 'mobilenetv2.cyc1.err',
     ['mobilenetv2.t1b1.steps.csv', 'mobilenetv2.t1b2.steps.csv']),
    # 1 thread, oneDNN only: the cold preparation with 96 MiB more read before each run (F)
    ('w7', 'mobilenetv2', 'mobilenetv2.cyc3.lut.json', 'mobilenetv2.cyc3.err',
     ['mobilenetv2.t1c1.steps.csv', 'mobilenetv2.t1c2.steps.csv']),
]


def figures(path):
    lut = json.load(open(path))
    out = {}
    for i, layer in enumerate(lut['layers']):
        for im in layer['impls']:
            lm = im.get('latency_ms') or {}
            if lm.get('mean') or lm.get('median'):
                out[(i, im['name'])] = lm.get('mean', lm.get('median'))
    return out, [l['name'] for l in lut['layers']]


def cycle(path):
    out = {}
    for line in open(path) if path else []:
        if line.startswith('EXP '):
            p = line.split()
            out[(p[1], p[2])] = {m.group(1): float(m.group(2)) for m in re.finditer(r'\[(\w*)\]([\d.]+)', line)}
    return out


w = csv.writer(sys.stdout)
w.writerow(['window', 'model', 'bench_file', 'deployment', 'threads', 'step', 'layer', 'name',
            'net_ms', 'old_lut_ms', 'fresh_lut_ms', 'cold30_ms', 'warm30_ms', 'no_flush30_ms', 'no_out_read30_ms',
            'no_evict30_ms', 'clean_evict30_ms', 'big_flush30_ms'])
for win, model, fresh, cyc, benches in WINDOWS:
    fr, names = figures(fresh)
    ex = cycle(cyc)
    for b in benches:
        for x in csv.DictReader(open(b)):
            if x['conversion'] == '1':
                continue
            i = int(x['layer'])
            f = fr.get((i, x['name']))
            if f is None:
                continue
            e = ex.get((names[i], x['name']), {})
            w.writerow([win, model, b, x['deployment'], x['threads'], x['step'], names[i], x['name'],
                        x['measured_ms'], x['lut_ms'], '%.5f' % f,
                        e.get('', ''), e.get('W', ''), e.get('f', ''), e.get('o', ''), e.get('e', ''),
                        e.get('d', ''), e.get('F', '')])
