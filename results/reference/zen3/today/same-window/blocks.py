"""The day's three prediction rounds (../pred/): per deployment, the network's step times (median of
the rounds) summed, over the LUT's figures, the first recheck's, the smaller of the two, the smallest of
the LUT and the three rechecks and their median. usage (in ../pred): python3 ../same-window/blocks.py"""
import csv,gzip,statistics,collections
models=['resnet50','mobilenetv2','mobilenetv3_large','squeezenet1_1','googlenet']
for m in models:
    for th in ('1','2'):
        for dep in ('opt-fp32','opt-int8','opt-mixed'):
            st=collections.defaultdict(lambda:{'net':[], 'rc':[], 'lut':None})
            for r in (1,2,3):
                for x in csv.DictReader(gzip.open(f'{m}.r{r}.steps.csv.gz','rt')):
                    if x['threads']!=th or x['deployment']!=dep: continue
                    k=(x['step'],x['name']); s=st[k]
                    s['net'].append(float(x['measured_ms'])); s['lut']=float(x['lut_ms'])
                    if x['recheck_ms'] and float(x['recheck_ms'])>=0: s['rc'].append(float(x['recheck_ms']))
            S=[s for s in st.values() if len(s['rc'])==3 and len(s['net'])==3]
            net=sum(statistics.median(s['net']) for s in S)
            lut=sum(s['lut'] for s in S)
            rc1=sum(s['rc'][0] for s in S)
            mn2=sum(min(s['lut'],s['rc'][0]) for s in S)
            mn4=sum(min([s['lut']]+s['rc']) for s in S)
            md4=sum(statistics.median([s['lut']]+s['rc']) for s in S)
            print(f'{m[:12]:12} t{th} {dep:9} steps {len(S):3} net/lut {net/lut:.2f} net/rc1 {net/rc1:.2f} net/min2 {net/mn2:.2f} net/min4 {net/mn4:.2f} net/med4 {net/md4:.2f}')
