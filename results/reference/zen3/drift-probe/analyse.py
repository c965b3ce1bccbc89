import csv,re,glob,statistics as st
probe={}
for l in open('data/probe.log'):
    f=l.split(); i=int(f[0]); d=dict(zip(f[7::2],map(float,f[8::2]))); probe[i]=(f[1],d)
rows=[]
print("| round | time | bw8 GB/s | bw16 | bw24 | bw64 | model | probe now/then | rechecked / LUT | measured / LUT | measured / rechecked |")
print("|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|")
data={}
for i in sorted(probe):
    t,d=probe[i]
    for M in ['squeezenet1_1','googlenet']:
        fn=f'data/{M}.{i}.csv'
        try: r=list(csv.DictReader(open(fn)))[0]
        except Exception: continue
        pr=float(r['predicted_ms']); rc=float(r['recheck_ms']); me=float(r['measured_ms']); k=float(r['speed_ratio_t1'])
        print(f"| {i} | {t} | {d['bw8']:.1f} | {d['bw16']:.1f} | {d['bw24']:.1f} | {d['bw64']:.1f} | {M} | {k:.3f} | {rc/pr:.3f} | {me/pr:.3f} | {me/rc:.3f} |")
        data.setdefault(M,[]).append((d,k,rc/pr,me/pr))
def corr(x,y):
    mx,my=st.mean(x),st.mean(y); sx=sum((a-mx)**2 for a in x)**.5; sy=sum((b-my)**2 for b in y)**.5
    return sum((a-mx)*(b-my) for a,b in zip(x,y))/(sx*sy) if sx>0 and sy>0 else float('nan')
print()
for M,v in data.items():
    drift=[x[2] for x in v]
    print(f"* {M}, {len(v)} rounds: rechecked/LUT {min(drift):.3f}-{max(drift):.3f}; correlation with the drift: "+
          ", ".join(f"{b} {corr([1/x[0][b] for x in v],drift):+.2f}" for b in ['bw8','bw16','bw24','bw64'])+
          f", speed probe {corr([x[1] for x in v],drift):+.2f} (bandwidths as 1/GB/s: time per byte)")
