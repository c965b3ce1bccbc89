"""Excess of the 1-thread steps of 2-thread deployments (measured - LUT) per KB of their outputs. usage: perkb.py LUT RUN..."""
import json,csv,math,sys,gzip,os
L=json.load(open(sys.argv[1]))
shape={i:l['out_shape'] for i,l in enumerate(L['layers'])}
for tag in sys.argv[2:]:
    f=tag+'.steps.csv'; rows=list(csv.DictReader(open(f) if os.path.exists(f) else gzip.open(f+'.gz','rt')))
    out=[]
    for dep in sorted(set(r['deployment'] for r in rows)):
        tot=ex=n=0
        for r in rows:
            if r['deployment']!=dep or r['conversion']!='0' or not r['name'].endswith('_t1') or r['threads']!='2': continue
            d=1 if '_int8_' in r['name'] else (2 if '_bf16_' in r['name'] else 4)
            tot+=math.prod(shape[int(r['layer'])])*d; ex+=float(r['measured_ms'])-float(r['lut_ms']); n+=1
        if n: out.append(f"{dep} n={n} {tot/1024:.0f} KB excess {ex:.3f} ms = {ex*1e3/(tot/1024):.3f} us/KB")
    print(tag,' | '.join(out))
