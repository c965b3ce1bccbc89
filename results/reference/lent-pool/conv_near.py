#!/usr/bin/env python3
"""The 2-thread deployments' conversions that move data on thread set 2 (not a thread-set change
alone), per model and the pool they ran on, summed over the runs whose cores sat near (median
core link <= 2x the profile's), against the LUT's figure for them (before the pool was lent,
that figure included the native-pool detour; steps files without a pool column ran on ours).
usage: python3 conv_near.py DIR ...  (DIRs of M.rN.csv + M.rN.steps.csv.gz)"""
import collections, csv, glob, gzip, re, sys
def moves(name):  # convert_<layout>_<dtype>_tA_to_<layout>_<dtype>_tB: data moves unless only tA != tB
    m = re.match(r"convert_(\w+?)_(\w+?)_t(\d)_to_(\w+?)_(\w+?)_t(\d)$", name)
    return m and (m.group(1), m.group(2)) != (m.group(4), m.group(5)) and m.group(6) == "2"
for d in sys.argv[1:]:
    acc = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for f in sorted(glob.glob(d + "/*.r*.csv")):
        if ".steps." in f: continue
        r2 = [r for r in csv.DictReader(open(f)) if r["threads"] == "2"]
        if float(r2[0]["core_link_ns"]) > 2 * float(r2[0]["core_link_profile_ns"]): continue
        model = f.split("/")[-1].split(".")[0]
        for s in csv.DictReader(gzip.open(f[:-4] + ".steps.csv.gz", "rt")):
            if s["threads"] == "2" and s["conversion"] == "1" and moves(s["name"]):
                for k in ((model, s.get("pool", "native")), ("all", "all")):
                    a = acc[k]; a[0] += 1; a[1] += float(s["measured_ms"]); a[2] += float(s["lut_ms"])
    print(f"{d}: conversions in near runs")
    for (m, p), (n, me, l) in sorted(acc.items()):
        print(f"  {m:18s} {p:8s} n={n:4d} measured {1000 * me / n:6.1f} us each, LUT {1000 * l / n:5.1f}, excess {1000 * (me - l) / n:+6.1f}")
