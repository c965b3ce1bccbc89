# F(6x6, 3x3) against F(4x4, 3x3) in float32 on random tiles: max error / max|y| (/usr/bin/python3 f6_error.py)
import numpy as np
from fractions import Fraction as F
BT=np.array([[1,0,-21/4,0,21/4,0,-1,0],[0,1,1,-17/4,-17/4,1,1,0],[0,-1,1,17/4,-17/4,-1,1,0],[0,1/2,1/4,-5/2,-5/4,2,1,0],[0,-1/2,1/4,5/2,-5/4,-2,1,0],[0,2,4,-5/2,-5,1/2,1,0],[0,-2,4,5/2,-5,-1/2,1,0],[0,-1,0,21/4,0,-21/4,0,1]])
G=np.array([[1,0,0],[-2/9,-2/9,-2/9],[-2/9,2/9,-2/9],[1/90,1/45,2/45],[1/90,-1/45,2/45],[32/45,16/45,8/45],[32/45,-16/45,8/45],[0,0,1]])
AT=np.array([[1,1,1,1,1,1,1,0],[0,1,-1,2,-2,1/2,-1/2,0],[0,1,1,4,4,1/4,1/4,0],[0,1,-1,8,-8,1/8,-1/8,0],[0,1,1,16,16,1/16,1/16,0],[0,1,-1,32,-32,1/32,-1/32,1]])
# 1-D check
d=np.random.randn(8); g=np.random.randn(3)
y=AT@((G@g)*(BT@d)); ref=np.array([d[i:i+3]@g for i in range(6)]); print('1d err',abs(y-ref).max())
BT4=np.array([[4,0,-5,0,1,0],[0,-4,-4,1,1,0],[0,4,-4,-1,1,0],[0,-2,-1,2,1,0],[0,2,-1,-2,1,0],[0,4,0,-5,0,1]])
G4=np.array([[1/4,0,0],[-1/6,-1/6,-1/6],[-1/6,1/6,-1/6],[1/24,1/12,1/6],[1/24,-1/12,1/6],[0,0,1]])
AT4=np.array([[1,1,1,1,1,0],[0,1,-1,2,-2,0],[0,1,1,4,4,0],[0,1,-1,8,-8,1]])
def wino(BT,G,AT,d,g):  # d: C x T x T, g: K x C x 3 x 3 ; one tile, float32 throughout
    f=np.float32
    U=np.einsum('ij,kcjl,ml->kcim',G.astype(f),g.astype(f),G.astype(f)).astype(f)
    V=np.einsum('ij,cjl,ml->cim',BT.astype(f),d.astype(f),BT.astype(f)).astype(f)
    Mm=np.einsum('kcim,cim->kim',U,V).astype(f)
    return np.einsum('ij,kjl,ml->kim',AT.astype(f),Mm,AT.astype(f))
rng=np.random.default_rng(1)
for C in (16,64,256,512):
  K=8
  for name,(bt,gg,at,T,M) in {'F4':(BT4,G4,AT4,6,4),'F6':(BT,G,AT,8,6)}.items():
    errs=[]
    for t in range(20):
      d=rng.uniform(-1,1,(C,T,T)); g=rng.normal(0,np.sqrt(2/(9*C)),(K,C,3,3))
      y=wino(bt,gg,at,d,g)
      ref=np.array([[[ (d[:,i:i+3,j:j+3]*g[k]).sum() for j in range(M)] for i in range(M)] for k in range(K)])
      errs.append(abs(y-ref).max()/abs(ref).max())
    print(C,name,'max rel err %.2e'%max(errs))
