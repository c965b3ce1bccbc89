#!/usr/bin/env python3
"""Offline (run in this folder): the prediction gap of the measured deployments had the LUT aged the streamed
weights under rule X (none / int8 / int8+bf16 / all), from the a (aged) and b (fresh) LUTs."""
import csv, json, glob, gzip, collections, statistics, math
MODELS = "resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet".split()
ROWS = json.load(open("streamed_rows.json"))  # per LUT (a, b), model, streamed layer: impl -> ms
def lut(v, m):
    rows = ROWS[v].get(m, {})
    t = {(int(i), n): ms for i, impls in rows.items() for n, ms in impls.items()}
    return t, {int(i) for i in rows}
def dtype_of(name): return "int8" if "_int8_" in name else "bf16" if "_bf16_" in name else "f32"
RULES = {"none": set(), "int8": {"int8"}, "int8+bf16": {"int8", "bf16"}, "all": {"int8", "bf16", "f32"}}
res = collections.defaultdict(list)
for m in MODELS:
    ta, stream = lut("a", m); tb, _ = lut("b", m)
    for src, base in (("preda", "a"), ("predb", "b")):
        for f in sorted(glob.glob(f"{src}/{m}.r*.csv")):
            if ".steps." in f: continue
            rows = {(r["threads"], r["deployment"]): r for r in csv.DictReader(open(f)) if r["status"] == "ok"}
            sf = f.replace(".csv", ".steps.csv.gz")
            steps = collections.defaultdict(list)
            for r in csv.DictReader(open(sf) if not sf.endswith("gz") else gzip.open(sf, "rt")):
                if r["conversion"] in ("0", "false", "") and int(r["layer"]) in stream:
                    steps[(r["threads"], r["deployment"])].append((int(r["layer"]), r["name"]))
            for k, r in rows.items():
                pred, meas = float(r["predicted_ms"]), float(r["measured_ms"])
                for rule, ds in RULES.items():
                    p = pred
                    for s in steps[k]:
                        d = ta[s] - tb[s]
                        aged = dtype_of(s[1]) in ds
                        if base == "a" and not aged: p -= d
                        if base == "b" and aged: p += d
                    res[(m, k[0], k[1], src, rule)].append(100 * (meas - p) / p)
for src in ("preda", "predb"):
    print(f"## deployments of {src}: median gap % per rule")
    print("| model | t | dep | " + " | ".join(RULES) + " |")
    for m in MODELS:
        for t in "12":
            for d in ("opt-fp32", "opt-int8", "opt-mixed"):
                g = [res.get((m, t, d, src, rule)) for rule in RULES]
                if not g[0]: continue
                print(f"| {m} | {t} | {d} | " + " | ".join(f"{statistics.median(x):+.1f}" for x in g) + " |")
    for t in "12":
        for rule in RULES:
            v = [statistics.median(res[(m, t, d, src, rule)]) for m in MODELS for d in ("opt-fp32", "opt-int8", "opt-mixed") if res.get((m, t, d, src, rule))]
            print(f"{src} t{t} {rule}: within 10 %: {sum(abs(x) <= 10 for x in v)}/{len(v)}, mean |gap| {statistics.mean(abs(x) for x in v):.2f}, mean gap {statistics.mean(v):+.2f}")
