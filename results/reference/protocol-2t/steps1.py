import csv,sys,collections
tags=sys.argv[1:]
data={}
for t in tags:
    for r in csv.DictReader(open(t)):
        if r['conversion']!='0': continue
        data.setdefault((r['threads'],int(r['step'])),{})[t]=(float(r['measured_ms']),float(r['recheck_ms']),r['name'])
for th in '12':
    tot=collections.defaultdict(float)
    print('threads',th, 'step name | meas/recheck per file')
    for (t,s),d in sorted(data.items()):
        if t!=th: continue
        line=f"{s:3d} {list(d.values())[0][2][:38]:38s}"
        for f in tags:
            if f in d: m,c,_=d[f]; line+=f" | {m:.4f} {c:.4f}"; tot[f+'m']+=m; tot[f+'c']+=c
        print(line)
    print('TOTAL',' | '.join(f"{f}: {tot[f+'m']:.3f} {tot[f+'c']:.3f}" for f in tags))
