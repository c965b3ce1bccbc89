import csv,glob,sys,collections
res=collections.defaultdict(list)
for f in sorted(glob.glob('*.csv')):
    if 'steps' in f: continue
    tag=f.rsplit('.r',1)[0]
    for r in csv.DictReader(open(f)):
        m,c=float(r['measured_ms']),float(r['recheck_ms'])
        res[(tag,r['threads'],r['deployment'])].append(f"{m:.3f}/{c:.3f}={100*(m-c)/c:+.1f}%")
for k,v in sorted(res.items()): print(k,' '.join(v))
