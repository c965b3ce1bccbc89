# per-category ratio of LUT medians, same impl name, between profile dirs (1-thread rows)
import json,sys,collections,statistics as st,glob,os
dirs=sys.argv[2:]; model=sys.argv[1]
luts=[]
for d in dirs:
    fn=glob.glob(f'{d}/luts/{model}*.json')+glob.glob(f'{d}/{model}*.json')
    fn=[f for f in fn if not f.endswith('.partial')]
    L=json.load(open(fn[0])); m={}
    for i,l in enumerate(L['layers']):
        for im in l['impls']:
            if im['status']=='ok' and im['latency_ms']['median']>0.005: m[(i,im['name'])]=(l['kind']+'/'+im['library']+'/'+im['algorithm']+'/t'+str(im['threads']),im['latency_ms']['median'])
    luts.append(m)
ref=luts[0]
for d,m in zip(dirs[1:],luts[1:]):
    g=collections.defaultdict(list)
    for k,(c,v) in m.items():
        if k in ref: g[c].append(v/ref[k][1])
    print(d, ' '.join(f'{c}:{st.median(v):.2f}({len(v)})' for c,v in sorted(g.items()) if len(v)>=5))
