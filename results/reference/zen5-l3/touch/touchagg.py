#!/usr/bin/env python3
"""The touch tests' oneDNN conv and FC steps, summed per round, network against LUT (medians over
the rounds). Run in a folder with the steps CSVs (tar xzf steps.tar.gz):
  touchagg.py       run.sh's  (M.eE.rR.steps.csv,    modes 1 = weights read, 2 = none) -> run1.txt
  touchagg.py 2     run2.sh's (t2.M.eE.rR.steps.csv, modes 2, 3 = output + workspace, 4 = all) -> run2.txt
  touchagg.py PREFIX MODE...   PREFIXM.eE.rR.steps.csv of the modes given (PREFIX with its dot, "" for none)"""
import collections, csv, glob, statistics, sys

second = len(sys.argv) > 1  # a mode column (run 2 and later tests) instead of touch=True/False
if len(sys.argv) > 2:  # touchagg.py PREFIX MODE...: another test's files (../../zen4-dec1/code-touch/)
    prefix, modes = sys.argv[1], [int(x) for x in sys.argv[2:]]
else:
    prefix, modes = ("t2.", (2, 3, 4)) if second else ("", (1, 2))
for m in ("mobilenetv2", "mobilenetv3_large"):
    for dep in ("opt-fp32", "opt-int8"):
        for e in modes:
            acc = collections.defaultdict(list)
            lut = collections.defaultdict(float)
            for f in sorted(glob.glob(f"{prefix}{m}.e{e}.r*.steps.csv")):
                s = collections.defaultdict(float)
                l = collections.defaultdict(float)
                for x in csv.DictReader(open(f)):
                    if x["deployment"] != dep or x["threads"] != "1":
                        continue
                    p = x["name"].split("_")
                    lib = [q for q in p if q in ("onednn", "xnnpack", "native")]
                    k = ("convert" if x["conversion"] == "1" else p[0]) + " " + (p[2] if len(p) > 2 else "") + " " + (lib[0] if lib else "")
                    s[k] += float(x["measured_ms"])
                    l[k] += float(x["lut_ms"])
                for k in s:
                    acc[k].append(s[k])
                    lut[k] = l[k]
            for k in sorted(acc):
                if "onednn" in k and ("conv2d" in k or "fully" in k):
                    mode = f"mode={e}" if second else f"touch={e == 1!s:5s}"
                    med = statistics.median(acc[k])
                    print(f'{m:18s} {dep:8s} {mode} {k:28s} network {med:.3f} ({" / ".join("%.3f" % v for v in acc[k])}) '
                          f"lut {lut[k]:.3f}  {100 * (med / lut[k] - 1):+.0f} %")
