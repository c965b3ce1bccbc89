# The "before" LUT: the int8 concat marked unsupported, as the old code had them.
import json,sys
src,dst=sys.argv[1],sys.argv[2]
L=json.load(open(src))
n=0
for l in L['layers']:
    if l['kind'] != 'concat': continue
    for m in l['impls']:
        if m['dtype']=='int8' and m['status']=='ok':
            m['status']='unsupported'; m['reason']='no int8 concat'; n+=1
json.dump(L,open(dst,'w'))
print(src,n,'impls marked')
