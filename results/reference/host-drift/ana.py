import json,glob,collections,statistics as st,re,sys
probe=collections.defaultdict(list)
for line in open('/tmp/q/mon/probe.log'):
    f=line.split(); probe[int(f[0])].append((int(f[1]),*map(float,f[2:])))
rows=[]
for fn in sorted(glob.glob('/tmp/q/mon/lut.*.json'),key=lambda s:int(s.split('.')[-2])):
    i=int(fn.split('.')[-2]); d=json.load(open(fn)); cat=collections.Counter()
    for L in d['layers']:
        for im in L['impls']:
            if im['status']!='ok' or im['library'] in ('input',): continue
            k=L['kind']+'/'+im['library']+('/wino' if im['algorithm']=='winograd' else '')
            cat[k]+=im['latency_ms']['median']
    rows.append((i,d['runtime']['speed_ms']['t1'],cat))
keys=sorted(set(k for r in rows for k in r[2]))
keys=[k for k in keys if st.median([r[2][k] for r in rows])>0.05]
base={k:st.median([r[2][k] for r in rows]) for k in keys}
pb=[st.median([p[j] for i in probe for p in probe[i]]) for j in range(1,5)]
sb=st.median([r[1] for r in rows])
print('i   t    speed  fma   l3    dram  chase |'+' '.join(k[:14].rjust(14) for k in keys))
for i,s,c in rows:
    p=probe[i]; t0=p[0][0]
    pm=[st.mean([x[j] for x in p])/pb[j-1] for j in range(1,5)]
    print(f'{i:3d} {time.strftime("%H:%M",time.gmtime(t0)) if False else t0%100000:6d} {s/sb:5.3f} '+' '.join(f'{v:5.3f}' for v in pm)+' |'+' '.join(f'{c[k]/base[k]:14.3f}' for k in keys))
print('base',{k:round(v,2) for k,v in base.items()})
import math
def corr(a,b):
    ma,mb=st.mean(a),st.mean(b); return sum((x-ma)*(y-mb) for x,y in zip(a,b))/math.sqrt(sum((x-ma)**2 for x in a)*sum((y-mb)**2 for y in b))
mem=['concat/native','max-pool/native','max-pool/onednn','relu/onednn','relu/native']
comp=['conv2d/onednn','conv2d/native','conv2d/onednn/wino']
L=[math.exp(st.mean([math.log(c[k]/base[k]) for k in mem])) for i,s,c in rows]
C=[math.exp(st.mean([math.log(c[k]/base[k]) for k in comp])) for i,s,c in rows]
P=[[st.mean([x[j] for x in probe[i]]) for i,s,c in rows] for j in range(1,5)]
S=[s for i,s,c in rows]
for nm,v in [('speed',S),('fma',P[0]),('l3',P[1]),('dram',P[2]),('chase',P[3]),('compute-layers',C)]:
    print(nm,'corr with mem-layers %.2f, with compute-layers %.2f'%(corr(v,L),corr(v,C)))
