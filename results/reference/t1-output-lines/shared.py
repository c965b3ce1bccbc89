"""Estimate of what the 1-thread steps of 2-thread deployments pay for lines shared with cpu1:
per step, the share of its output bytes the other core holds when it writes them:
  1/2 when it works in place (an activation) on a 2-thread step's output (cpu1 wrote that half, the
      step read it: shared), and 1/2 when a 2-thread step reads its output (cpu1 read its half in the
      previous inference), capped at 1;
times C us per KB (firstwrite.c: ~0.12 us per KB of lines shared with a core ~500 ns away).
usage: shared.py LUT C RUN..."""
import json,csv,math,sys,gzip,os,collections
L=json.load(open(sys.argv[1])); C=float(sys.argv[2])
lay=L['layers']; shape={i:l['out_shape'] for i,l in enumerate(lay)}
cons=collections.defaultdict(list)
for i,l in enumerate(lay):
    for p in l.get('inputs',[]): cons[p].append(i)
INPLACE={'relu','relu6','clip','hardswish','sigmoid','hard-sigmoid','leaky-relu','activation'}
for tag in sys.argv[3:]:
    f=tag+'.steps.csv'; rows=list(csv.DictReader(open(f) if os.path.exists(f) else gzip.open(f+'.gz','rt')))
    out=[]
    for dep in sorted(set(r['deployment'] for r in rows)):
        st=[r for r in rows if r['deployment']==dep and r['conversion']=='0' and r['threads']=='2']
        th={int(r['layer']):(2 if r['name'].endswith('_t2') else 1) for r in st}
        def thr(j):  # a layer without a step (fused into its producer) runs where that producer runs
            while j not in th and lay[j].get('inputs'): j=lay[j]['inputs'][0]
            return th.get(j,1)
        def cons_thr(j):  # threads of the steps reading j's output (through fused layers)
            t=[]
            for c in cons[j]:
                if c in th: t.append(th[c])
                else: t+=cons_thr(c)
            return t
        est=ex=0; n=0; A=[0,0]
        for r in st:
            if not r['name'].endswith('_t1'): continue
            t=int(r['layer']); d=1 if '_int8_' in r['name'] else (2 if '_bf16_' in r['name'] else 4)
            kb=math.prod(shape[t])*d/1024
            fr=0
            ins=lay[t].get('inputs',[])
            a=0.5 if (lay[t]['kind'] in INPLACE and ins and thr(ins[0])==2) else 0
            b=0.5 if 2 in cons_thr(t) else 0
            A[0]+=C*a*kb/1e3; A[1]+=C*b*kb/1e3
            est+=C*min(a+b,1)*kb/1e3; ex+=float(r['measured_ms'])-float(r['lut_ms']); n+=1
        if n: out.append(f"{dep} excess {ex:.3f} est {est:.3f} (in place after 2t {A[0]:.3f}, read by 2t {A[1]:.3f})")
    print(tag,' | '.join(out))
