# The same for run2.sh's CSVs (t2.*).
import csv,collections,statistics,sys,glob
# per model, deployment, condition: summed network / LUT per step kind over the rounds
for m in ('mobilenetv2','mobilenetv3_large'):
  for dep in ('opt-fp32','opt-int8'):
    for e in (2,3,4):
      acc=collections.defaultdict(list); lut=collections.defaultdict(float)
      for f in sorted(glob.glob(f't2.{m}.e{e}.r*.steps.csv')):
        s=collections.defaultdict(float); l=collections.defaultdict(float)
        for x in csv.DictReader(open(f)):
          if x['deployment']!=dep or x['threads']!='1': continue
          p=x['name'].split('_'); lib=[q for q in p if q in('onednn','xnnpack','native')]
          k=('convert' if x['conversion']=='1' else p[0])+' '+(p[2] if len(p)>2 else '')+' '+(lib[0] if lib else '')
          s[k]+=float(x['measured_ms']); l[k]+=float(x['lut_ms'])
        for k in s: acc[k].append(s[k]); lut[k]=l[k]
      for k in sorted(acc):
        if 'onednn' in k and ('conv2d' in k or 'fully' in k):
          print(f'{m:18s} {dep:8s} mode={e} {k:28s} network {statistics.median(acc[k]):.3f} ({" / ".join("%.3f"%v for v in acc[k])}) lut {lut[k]:.3f}  {100*(statistics.median(acc[k])/lut[k]-1):+.0f} %')
