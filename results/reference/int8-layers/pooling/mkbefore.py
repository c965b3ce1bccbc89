# The "before" LUT: oneDNN's int8 poolings marked unsupported, as the old code had them.
import json,sys
src,dst=sys.argv[1],sys.argv[2]
L=json.load(open(src))
n=0
for l in L['layers']:
    if l['kind'] not in ('max-pool','avg-pool','global-avg-pool'): continue
    for m in l['impls']:
        if m['dtype']=='int8' and m['status']=='ok':
            m['status']='unsupported'; m['reason']='int8 only for convolution and fully-connected'; n+=1
json.dump(L,open(dst,'w'))
print(src,n,'impls marked')
