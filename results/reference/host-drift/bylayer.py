import json,sys,statistics as st
a=json.load(open(sys.argv[1]));b=json.load(open(sys.argv[2]))
for i,(la,lb) in enumerate(zip(a['layers'],b['layers'])):
    ma={im['name']:im['latency_ms']['median'] for im in la['impls'] if im['status']=='ok' and im['latency_ms']['median']>0.003}
    r1=[im['latency_ms']['median']/ma[im['name']] for im in lb['impls'] if im['name'] in ma and im['status']=='ok' and im['threads']==1]
    r2=[im['latency_ms']['median']/ma[im['name']] for im in lb['impls'] if im['name'] in ma and im['status']=='ok' and im['threads']==2]
    if r1: print(i,la['kind'][:10].ljust(10),len(r1),'t1 %.2f'%st.median(r1),'t2 %.2f'%st.median(r2) if r2 else '')
