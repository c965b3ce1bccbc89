"""Two 1-thread LUTs of one model (X: profiled with the experiment's preparation, C: plain) against
the 1-thread steps of the 2-thread deployments of the mean-cost trial (/tmp/q/p71/pred).
usage: cmp.py MODEL X.lut.json C.lut.json [v]"""
import csv,json,glob,collections,statistics,sys
def load(p):
    j=json.load(open(p)); return [{i['name']:i['latency_ms'] for i in l['impls'] if i['status']=='ok'} for l in j['layers']]
model=sys.argv[1]; X=load(f'/tmp/q/xin/{model[0]}_xin.lut.json' if len(sys.argv)<3 else sys.argv[2]); C=load(f'/tmp/q/xin/{model[0]}_ctl.lut.json' if len(sys.argv)<4 else sys.argv[3])
# LUT-level: ratio xin/ctl for all 1-thread impls
r=[X[i][n]['median']/C[i][n]['median'] for i in range(len(X)) for n in X[i] if n in C[i] and n.endswith('_t1') and C[i][n]['median']>0.002]
print('LUT: xin/ctl median ratio over', len(r),'1-thread impls: p10 %.2f median %.2f p90 %.2f'%(statistics.quantiles(r,n=10)[0],statistics.median(r),statistics.quantiles(r,n=10)[-1]))
# in network: t1 steps of 2-thread deployments
acc=collections.defaultdict(list)
for f in glob.glob(f'/tmp/q/p71/pred/{model}.a.r*.steps.csv'):
    for s in csv.DictReader(open(f)):
        if s['threads']!='2' or s['conversion']=='1' or s['pool']!='caller': continue
        acc[(s['deployment'],int(s['step']),int(s['layer']),s['name'])].append((float(s['measured_ms']),float(s['mean_ms']),float(s['lut_ms'])))
tot=[0,0,0,0]
for k,v in sorted(acc.items()):
    i,n=k[2],k[3]
    if n not in X[i] or n not in C[i]: continue
    m=statistics.median(x[0] for x in v); lut=v[0][2]
    tot[0]+=m; tot[1]+=lut; tot[2]+=C[i][n]['median']; tot[3]+=X[i][n]['median']
    if len(sys.argv)>4: print(k, 'net %.4f lut %.4f ctl %.4f xin %.4f'%(m,lut,C[i][n]['median'],X[i][n]['median']))
print('t1 steps of 2-thread deployments: in network %.3f, p71 LUT %.3f, ctl %.3f, xin %.3f (ms, summed)'%tuple(tot))
