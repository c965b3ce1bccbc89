# Per shape and thread set: the best native Winograd (any layout, fusion, tile) median of each
# binary (a: before, b: blocks >= U, c: b + whole equal blocks per thread), median over reps.
import json,glob,statistics as st,collections,sys
d=sys.argv[1] if len(sys.argv)>1 else 'r2'
VARS=sys.argv[2] if len(sys.argv)>2 else 'abc'
res=collections.defaultdict(lambda: collections.defaultdict(list))
for f in glob.glob(d+'/out.*.json'):
  _,b,v,i,_=f.split('/')[-1].split('.')
  for x in json.load(open(f))['layers'][1]['impls']:
    if x.get('status')=='ok' and 'winograd' in x['name']:
      res[(b,x['name'])][v].append(x['latency_ms']['median'])
print('shape,threads,'+','.join(v+'_ms' for v in VARS)+','+','.join(v+'/'+VARS[0] for v in VARS[1:])+',best_'+VARS[0]+',best_'+VARS[-1])
for s in sorted(set(k[0] for k in res)):
  for t in ('t1','t2'):
    best={}
    for v in VARS:
      c=[(st.median(dd[v]),n) for (b,n),dd in res.items() if b==s and n.endswith(t) and dd[v]]
      best[v]=min(c) if c else (float('nan'),'-')
    if best[VARS[0]][1]=='-': continue
    print(','.join([s,t]+['%.3f'%best[v][0] for v in VARS]+['%.3f'%(best[v][0]/best[VARS[0]][0]) for v in VARS[1:]]+[best[VARS[0]][1][7:],best[VARS[-1]][1][7:]]))
