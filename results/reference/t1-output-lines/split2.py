"""Per run: the 1-thread steps of 2-thread deployments (conversions left out), measured / LUT summed, and the
2-thread steps likewise. usage: split2.py RUN... (RUN.csv and RUN.steps.csv)"""
import gzip,os,csv,collections,sys
def opensteps(t):
    return open(t+'.steps.csv') if os.path.exists(t+'.steps.csv') else gzip.open(t+'.steps.csv.gz','rt')
for tag in sys.argv[1:]:
    S=collections.defaultdict(lambda:[0,0])
    for s in csv.DictReader(opensteps(tag)):
        if s['threads']!='2' or s['conversion']=='1': continue
        k=(s['deployment'],'t2' if s['name'].endswith('_t2') else 't1')
        S[k][0]+=float(s['measured_ms']); S[k][1]+=float(s['lut_ms'])
    rows={r['deployment']:r for r in csv.DictReader(open(tag+'.csv'))}
    link=next(iter(rows.values()))['core_link_ns']
    out=[]
    for d in rows:
        t1=S.get((d,'t1')); t2=S.get((d,'t2'))
        f=lambda v: f"{v[0]:.3f}/{v[1]:.3f} ({100*(v[0]/v[1]-1):+.0f}%)" if v and v[1]>0 else "-"
        out.append(f"{d}: measured {float(rows[d]['measured_ms']):.2f} vs {float(rows[d]['predicted_ms']):.2f}; t1 steps {f(t1)}; t2 steps {f(t2)}")
    print(f"{tag} link {float(link):.0f} ns | "+" | ".join(out))
