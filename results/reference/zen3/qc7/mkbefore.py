# The "before" LUT: oneDNN's qc7 int8 convs and inner products marked unsupported, as the code
# before them had every oneDNN int8 conv on a CPU without VNNI. usage: mkbefore.py SRC DST
import json, sys
src, dst = sys.argv[1], sys.argv[2]
L = json.load(open(src))
n = 0
for l in L['layers']:
    for m in l['impls']:
        if m['library'] == 'onednn' and m['algorithm'] == 'qc7' and m['status'] == 'ok':
            m['status'] = 'unsupported'; m['reason'] = 'qc7 not offered (before)'; n += 1
json.dump(L, open(dst, 'w'))
print(src, n, 'implementations marked')
