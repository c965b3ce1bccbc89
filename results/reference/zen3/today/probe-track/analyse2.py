#!/usr/bin/env python3
"""loop2.out -> how each fixed workload (mean of its figures before and after a pass, over its
median) and the speed probe follow SqueezeNet's measured / predicted at 1 thread."""
import statistics as st
rows = [l.split() for l in open("loop2.out")]
fp32 = [float(r[9]) for r in rows]; int8 = [float(r[10]) for r in rows]; probe = [float(r[11]) for r in rows]
def corr(a, b):
    ma, mb = st.mean(a), st.mean(b)
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / (sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b)) ** .5
def slope(x, y):
    return sum((a - st.mean(x)) * (b - st.mean(y)) for a, b in zip(x, y)) / sum((a - st.mean(x)) ** 2 for a in x)
for g, name in enumerate(("fma", "l1", "l2", "gemm")):
    x = [(float(r[1 + g]) + float(r[5 + g])) / 2 for r in rows]
    x = [v / st.median(x) for v in x]
    print(f"{name}: {min(x):.3f}-{max(x):.3f}, correlation opt-fp32 {corr(x, fp32):.2f}, opt-int8 {corr(x, int8):.2f}, slope {slope(x, fp32):.2f}")
print(f"probe: {min(probe):.3f}-{max(probe):.3f}, correlation opt-fp32 {corr(probe, fp32):.2f}, opt-int8 {corr(probe, int8):.2f}, slope {slope(probe, fp32):.2f}")
print(f"opt-fp32 measured / predicted: median {st.median(fp32):.3f} ({min(fp32):.3f}-{max(fp32):.3f})")
