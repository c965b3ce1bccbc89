import json,sys,math
# plan_arena (libs/exec/memory_plan.cc) re-done in Python over a LUT's layers
def plan(bufs):
    order=sorted(range(len(bufs)),key=lambda i:-bufs[i][0])
    off={};arena=0;placed=[]
    al=lambda x:(x+63)//64*64
    for i in order:
        b,f,l=bufs[i]
        live=sorted([j for j in placed if bufs[j][1]<=l and f<=bufs[j][2]],key=lambda j:off[j])
        o=0
        for j in live:
            if off[j]>=o+al(b): break
            o=max(o,off[j]+al(bufs[j][0]))
        off[i]=o;arena=max(arena,o+al(b));placed.append(i)
    return arena
# usage: arena.py LUT_DIR MODEL...: every output's sum against the arena with reuse (f32 MiB)
for m in sys.argv[2:]:
    d=json.load(open(f'{sys.argv[1]}/{m}.lut.json'));L=d['layers']
    bufs=[[math.prod(l['out_shape']),i,i] for i,l in enumerate(L)]
    for i,l in enumerate(L):
        for p in l['inputs']: bufs[p][2]=max(bufs[p][2],i)
    bufs[-1][2]=len(L)
    s=sum(b[0] for b in bufs); a=plan(bufs)
    print(m, 'sum MiB %.1f arena MiB %.1f ratio %.1f'%(4*s/2**20,4*a/2**20,s/a))
