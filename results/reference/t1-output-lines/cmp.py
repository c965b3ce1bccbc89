# The 1-thread steps of the far runs against GoogLeNet 1-thread profiles g{0,2,1}{a,b}.lut.json
# (LW_T1OUT=0/2/1 of t1out.patch); run where those LUTs are (this session: /tmp/q/pull).
import gzip,os,json,csv,sys,glob,statistics,collections
def load(f):
    L=json.load(open(f)); d={}
    for i,l in enumerate(L['layers']):
        for m in l['impls']:
            lat=m.get('latency_ms') or {}
            d[(str(i),m['name'])]=lat.get('mean',lat.get('median'))
    return d
def opensteps(t):
    return open(t+'.steps.csv') if os.path.exists(t+'.steps.csv') else gzip.open(t+'.steps.csv.gz','rt')
luts={k:load(f'g{k}.lut.json') for k in ['0a','0b','2a','2b','1a','1b']}
# measured t1 steps of 2-thread deployments (far runs z0.*, c0.r2/r3), per (layer,name) median
meas=collections.defaultdict(list)
for f in ['z0.r1','z0.r2','z0.r3','c0.r2','c0.r3']:
    for r in csv.DictReader(opensteps(f)):
        if r['conversion']=='0' and r['name'].endswith('_t1'): meas[(r['deployment'],r['layer'],r['name'])].append(float(r['measured_ms']))
for dep in ['opt-fp32','opt-int8']:
    keys=[k for k in meas if k[0]==dep]
    m=sum(statistics.median(meas[k]) for k in keys)
    out=[f'{dep} t1 steps n={len(keys)} network {m:.3f}']
    for name,d in luts.items():
        try: out.append(f'{name} {sum(d[(k[1],k[2])] for k in keys):.3f}')
        except KeyError as e: out.append(f'{name} missing {e}')
    print(' | '.join(out))
