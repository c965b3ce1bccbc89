# The LUTs without the F(6x6, 3x3) implementations: what the search had before them.
import json, os
for f in os.listdir('with'):
    if not f.endswith('.lut.json'): continue
    j = json.load(open('with/' + f))
    n = 0
    for layer in j['layers']:
        impls = layer.get('impls') if isinstance(layer, dict) else None
        if impls is None: continue
        keep = [i for i in impls if 'winograd_f6' not in (i.get('name', '') if isinstance(i, dict) else str(i))]
        n += len(impls) - len(keep); layer['impls'] = keep
    json.dump(j, open('without/' + f, 'w'))
    print(f, 'removed', n)
