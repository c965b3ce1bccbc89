import csv,statistics as st
for M in ['squeezenet1_1','googlenet']:
    k=[];d=[];a=[];me=[]
    for i in range(1,25):
        try: r=list(csv.DictReader(open(f'data/{M}.{i}.csv')))[0]
        except Exception: continue
        pr=float(r['predicted_ms']); k.append(float(r['speed_ratio_t1'])); d.append(float(r['recheck_ms'])/pr); a.append(float(r['at_speed_ms'])); me.append(float(r['measured_ms'])/pr)
    mk,md=st.mean(k),st.mean(d)
    slope=sum((x-mk)*(y-md) for x,y in zip(k,d))/sum((x-mk)**2 for x in k)
    print(f"{M}: probe ratio {min(k):.3f}-{max(k):.3f} (median {st.median(k):.3f}); drift (rechecked/LUT) {min(d):.3f}-{max(d):.3f} (median {st.median(d):.3f}); slope of drift on probe {slope:.2f}; drift/probe {min(x/y for x,y in zip(d,k)):.3f}-{max(x/y for x,y in zip(d,k)):.3f}; measured/LUT {min(me):.3f}-{max(me):.3f} (median {st.median(me):.3f})")
