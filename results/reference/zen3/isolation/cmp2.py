import json,gzip,csv,sys,math
# usage: cmp2.py LUT STEPS_CSV[.gz] [DEPLOYMENT]: the LUT's medians of a deployment's 1-thread
# steps (bench --steps) against their in-network times: sum and median ratio
lut=json.load(open(sys.argv[1])); f=sys.argv[2] if len(sys.argv)>2 else '/work/main/results/reference/zen3/pred/mobilenetv2.r1.steps.csv.gz'
op=gzip.open if f.endswith('gz') else open
rows=[r for r in csv.DictReader(op(f,'rt')) if r['deployment']==(sys.argv[3] if len(sys.argv)>3 else 'opt-fp32') and r['threads']=='1' and r['conversion']=='0']
tn=tl=0;miss=0;per=[]
for r in rows:
    m={x['name']:x for x in lut['layers'][int(r['layer'])]['impls']}.get(r['name'])
    if not m or m['status']!='ok': miss+=1; continue
    new=m['latency_ms']['median']; net=float(r['measured_ms'])
    tn+=net; tl+=new; per.append(new/net)
per.sort()
print('%s: steps %d (missing %d) LUT/net sum %.3f (LUT %.2f net %.2f) median step ratio %.2f'%(sys.argv[1],len(per),miss,tl/tn,tl,tn,per[len(per)//2]))
