"""1-thread steps of 2-thread deployments (bench --steps): measured / LUT by the time since the
last 2-thread step ended and by their rank after it. usage: t1ctx.py 'GLOB'"""
import csv,glob,collections,statistics,sys
# 1-thread steps of 2-thread deployments: ratio measured/LUT by time since the last 2-thread step ended (sum of measured in between)
rows=[]
for f in sorted(glob.glob(sys.argv[1])):
    steps=list(csv.DictReader(open(f)))
    by=collections.defaultdict(list)
    for s in steps:
        if s['threads']=='2': by[s['deployment']].append(s)
    for dep,ss in by.items():
        since=None; n_since=0
        for s in ss:
            t2 = s['name'].endswith('_t2')
            if s['conversion']=='1':
                if since is not None: since+=float(s['measured_ms'])
                continue
            if t2: since=0.0; n_since=0; continue
            lut=float(s['lut_ms'])
            if since is not None and lut>0:
                rows.append((since,n_since,float(s['measured_ms']),lut,s['name'],s['model']))
                n_since+=1
                since+=float(s['measured_ms'])
bins=[(0,0.02),(0.02,0.1),(0.1,0.3),(0.3,0.6),(0.6,100)]
for lo,hi in bins:
    r=[x for x in rows if lo<=x[0]<hi]
    if not r: continue
    m=sum(x[2] for x in r); l=sum(x[3] for x in r)
    print(f"since last t2 step {lo}-{hi} ms: n={len(r)} measured {m:.3f} LUT {l:.3f} {100*(m-l)/l:+.0f}%  median ratio {statistics.median(x[2]/x[3] for x in r):.2f}")
for k in range(4):
    r=[x for x in rows if x[1]==k] if k<3 else [x for x in rows if x[1]>=3]
    if not r: continue
    m=sum(x[2] for x in r); l=sum(x[3] for x in r)
    print(f"k-th t1 step after t2 = {k}{'+' if k==3 else ''}: n={len(r)} {100*(m-l)/l:+.0f}% median ratio {statistics.median(x[2]/x[3] for x in r):.2f}")
