import csv,glob,statistics,collections
res=collections.defaultdict(lambda: collections.defaultdict(list))
for V in ['alone','refined']:
    for f in sorted(glob.glob('/tmp/q/ab/%s/*.r?.csv'%V)):
        for r in csv.DictReader(open(f)):
            if r['status']!='ok': continue
            p=float(r['predicted_ms']); m=float(r['measured_ms']); rc=float(r['recheck_ms'] or 0)
            res[V][(r['model'],r['deployment'])].append((m/p-1, m/rc-1 if rc>0 else float('nan'), p, m))
print('| model | deployment | alone: predicted ms | measured (r1 / r2) | gap | vs recheck | refined: predicted ms | measured (r1 / r2) | gap | vs recheck |')
print('|---|---|---:|---|---:|---:|---:|---|---:|---:|')
cnt={V:[0,0] for V in res}
for k in sorted(res['alone']):
    row=['| %s | %s'%k]
    for V in ['alone','refined']:
        v=res[V][k]; g=statistics.median(x[0] for x in v); gr=statistics.median(x[1] for x in v)
        cnt[V][0]+=abs(g)<=0.10; cnt[V][1]+=abs(gr)<=0.10
        row.append('%.2f | %s | %+.1f %% | %+.1f %%'%(v[0][2],' / '.join('%.2f'%x[3] for x in v),100*g,100*gr))
    print(' | '.join(row)+' |')
for V in cnt: print('* %s: %d of 15 within 10 %% of the prediction, %d of 15 of the rechecked prediction (median of two runs)'%(V,cnt[V][0],cnt[V][1]))
