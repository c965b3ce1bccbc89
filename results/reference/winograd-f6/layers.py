# Per 3x3 layer of a LUT: F(6x6, 3x3)'s best f32 1-thread mean against the best other f32
# implementation (any library) and against F(4x4, 3x3). Run in this folder's parent of with/.
import json, sys
d = sys.argv[1] if len(sys.argv) > 1 else '/tmp/q/f6/with'
print('| model | layer | output | F(6x6) ms | F(4x4) ms | best other ms | F(6x6) / best other |')
print('|---|---|---|---:|---:|---:|---:|')
for m in ['googlenet', 'squeezenet1_1', 'resnet50']:
    j = json.load(open(f'{d}/{m}.lut.json'))
    wins = tot = 0
    for l in j['layers']:
        best = {}
        for i in l.get('impls', []):
            if i.get('status') != 'ok' or i['dtype'] != 'f32' or i['threads'] != 1 or 'mean' not in i.get('latency_ms', {}):
                continue
            a = i['library'] + ':' + i['algorithm']
            best[a] = min(best.get(a, 1e9), i['latency_ms']['mean'])
        if 'native:winograd_f6' not in best: continue
        f6 = best['native:winograd_f6']
        other = min(v for k, v in best.items() if k != 'native:winograd_f6')
        tot += 1; wins += f6 < other
        print(f"| {m} | {l['name']} | {'x'.join(map(str, l['out_shape'][1:]))} | {f6:.3f} | {best.get('native:winograd_f4', 0):.3f} | {other:.3f} | {f6 / other:.2f} |")
    print(f'| {m} | F(6x6) fastest on {wins} of {tot} | | | | | |')
