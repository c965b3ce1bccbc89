import json,collections,statistics as st,sys
def cats(fn):
    d=json.load(open(fn)); m={}
    for i,l in enumerate(d['layers']):
        for im in l['impls']:
            if im['status']=='ok' and im['latency_ms']['median']>0.003: m[(i,im['name'])]=(l['kind']+'/'+im['library']+'/'+im['algorithm'],im['latency_ms']['median'])
    return m,d['runtime']['speed_ms']['t1']
ref,s0=cats('hogx2/none.json')
for n in sys.argv[1:]:
    m,s=cats(f'hogx2/{n}.json'); g=collections.defaultdict(list)
    for k,(c,v) in m.items():
        if k in ref: g[c].append(v/ref[k][1])
    print(n.ljust(6),'speed %.3f'%(s/s0),' '.join(f'{c}:{st.median(v):.2f}' for c,v in sorted(g.items()) if len(v)>=5))
