import gzip,csv,glob,sys,collections,re,statistics as st
MEM=('pool','concat','relu','add','convert','flatten','hard','sigmoid','mul','clip')
res=collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/*.x?.r*.csv')):
    if f.endswith('steps.csv'): continue
    m,x,r=re.match(r'.*/(.*)\.x(\d)\.r(\d+)\.csv',f).groups()
    rows={d['deployment']:d for d in csv.DictReader(open(f))}
    steps=list(csv.DictReader(gzip.open(f.replace('.csv','.steps.csv.gz'),'rt')))
    for dep,d in rows.items():
        S=[s for s in steps if s['deployment']==dep and s['conversion']=='0']
        def agg(pred):
            ss=[s for s in S if pred(s)]
            a=sum(float(s['mean_ms']) for s in ss); b=sum(float(s['recheck_ms']) for s in ss)
            return a/b-1 if b>0 else float('nan')
        mem=lambda s: s['pool']!='caller' and not s['name'].startswith(('conv2d','fully'))
        cmp_=lambda s: s['pool']!='caller' and s['name'].startswith(('conv2d','fully'))
        e2e=float(d['measured_ms'])/float(d['recheck_ms'])-1
        res[(m,dep,x)].append((int(r),float(d['core_link_ns']),e2e,agg(mem),agg(cmp_),agg(lambda s:s['pool']=='caller')))
for k in sorted(res):
    v=res[k]
    print('%-14s %-9s X%s'%k, ' '.join('r%d(%3.0fns) e2e %+4.0f%% mem %+4.0f%% cmp %+4.0f%% cal %+4.0f%% |'%(r,l,100*a,100*b,100*c,100*d) for r,l,a,b,c,d in sorted(v)))
    print('   medians: e2e %+.1f%% mem %+.1f%% cmp %+.1f%%'%tuple(100*st.median([t[i] for t in v]) for i in (2,3,4)))
