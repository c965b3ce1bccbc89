# The "before" LUT: int8 convs absorbing a residual add marked unsupported, as the old code had them.
import json,sys
src,dst=sys.argv[1],sys.argv[2]
L=json.load(open(src))
lay=L['layers']
cons={}
for j,l in enumerate(lay):
    for i in l.get('inputs',[]): cons.setdefault(i,[]).append(j)
n=0
for i,l in enumerate(lay):
    if l['kind']!='conv2d': continue
    c=cons.get(i,[])
    if len(c)!=1 or lay[c[0]]['kind']!='add': continue
    for m in l['impls']:
        if m['dtype']=='int8' and m['fused_activation'] and m['library']=='onednn' and m['status']=='ok':
            m['status']='unsupported'; m['reason']='int8 with a residual add'; n+=1
json.dump(L,open(dst,'w'))
print(src,n,'impls marked')
