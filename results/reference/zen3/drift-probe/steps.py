import csv,gzip,statistics as st,collections
probe={}
for l in open('data/probe.log'):
    f=l.split(); probe[int(f[0])]=dict(zip(f[7::2],map(float,f[8::2])))
def corr(x,y):
    mx,my=st.mean(x),st.mean(y); sx=sum((a-mx)**2 for a in x)**.5; sy=sum((b-my)**2 for b in y)**.5
    return sum((a-mx)*(b-my) for a,b in zip(x,y))/(sx*sy) if sx>0 and sy>0 else float('nan')
for M in ['squeezenet1_1','googlenet']:
    cls=collections.defaultdict(lambda: collections.defaultdict(lambda:[0.0,0.0]))
    speed={}
    for i in probe:
        try:
            rows=list(csv.DictReader(gzip.open(f'data/{M}.{i}.steps.csv.gz', 'rt')))
            speed[i]=float(list(csv.DictReader(open(f'data/{M}.{i}.csv')))[0]['speed_ratio_t1'])
        except Exception: continue
        for r in rows:
            if r['deployment']!='opt-fp32' or float(r['recheck_ms'])<=0: continue
            n=r['name']; p=n.split('_'); k='conv winograd' if 'winograd' in n else f"{p[0]} {p[3]}" + (' gemm_1x1' if 'gemm_1x1' in n else '')
            a=cls[k][i]; a[0]+=float(r['recheck_ms']); a[1]+=float(r['lut_ms'])
    print(f"{M}: per step class, rechecked / LUT over the rounds (min-median-max), and its correlation with 1/bw24, 1/bw64, the speed probe")
    for k,v in sorted(cls.items(), key=lambda x:-sum(a[1] for a in x[1].values())):
        idx=sorted(v); ratio=[v[i][0]/v[i][1] for i in idx]
        if sum(v[i][1] for i in idx)/len(idx) < 0.1: continue
        print(f"  {k:<22} LUT {st.mean([v[i][1] for i in idx]):6.2f} ms  {min(ratio):.2f}-{st.median(ratio):.2f}-{max(ratio):.2f}  r(bw24) {corr([1/probe[i]['bw24'] for i in idx],ratio):+.2f}  r(bw64) {corr([1/probe[i]['bw64'] for i in idx],ratio):+.2f}  r(probe) {corr([speed[i] for i in idx],ratio):+.2f}")
