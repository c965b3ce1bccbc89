#!/usr/bin/env python3
"""loop.out -> how each gauge (one core's read bandwidth over 256 / 16 / 2 MiB, the speed
probe's ratio now / at profiling) follows SqueezeNet's measured / predicted at 1 thread."""
import statistics as st
rows = [l.split() for l in open("loop.out")]
col = lambda k: [float(r[k]) for r in rows]
fp32, probe, int8 = col(8), col(10), col(12)
def corr(a, b):
    ma, mb = st.mean(a), st.mean(b)
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / (sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b)) ** .5
for name, k in (("bw256 GB/s", 2), ("bw16 GB/s", 4), ("bw2 GB/s", 6), ("probe now/then", 10)):
    x = col(k)
    print(f"{name}: {min(x):.2f}-{max(x):.2f}, correlation with opt-fp32 {corr(x, fp32):.2f}, opt-int8 {corr(x, int8):.2f}")
slope = sum((x - st.mean(probe)) * (y - st.mean(fp32)) for x, y in zip(probe, fp32)) / sum((x - st.mean(probe)) ** 2 for x in probe)
print(f"opt-fp32 measured/predicted: median {st.median(fp32):.3f} ({min(fp32):.3f}-{max(fp32):.3f}), over the probe {st.median(a / b for a, b in zip(fp32, probe)):.3f}; slope vs the probe {slope:.2f}")
print(f"opt-int8 measured/predicted: median {st.median(int8):.3f} ({min(int8):.3f}-{max(int8):.3f}), over the probe {st.median(a / b for a, b in zip(int8, probe)):.3f}")
n = len(rows)
print(f"within 10 % of {n}: opt-fp32 {sum(abs(x - 1) <= .1 for x in fp32)}, at the probed speed {sum(abs(a / b - 1) <= .1 for a, b in zip(fp32, probe))}; "
      f"opt-int8 {sum(abs(x - 1) <= .1 for x in int8)}, at the probed speed {sum(abs(a / b - 1) <= .1 for a, b in zip(int8, probe))}")
