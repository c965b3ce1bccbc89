#!/usr/bin/env python3
"""Issue 12's ratios from three bench rounds (M.r1-3.csv in the current folder): the median of
the rounds' speed-ups vs Ref-FP32 per deployment and thread count, and each run's count of
2-thread rounds next to a shared-core reading. Ran in pred/: python3 ../speed.py > speed.md"""
import csv, statistics as st
models = "resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet".split()
print("| model | opt-fp32 / Ref-FP32, 1 t | opt-int8, 1 t | opt-mixed, 1 t | opt-fp32, 2 t | opt-int8, 2 t "
      "| opt-mixed, 2 t | rounds with a shared-core reading (2 t), per run |")
print("|---|---:|---:|---:|---:|---:|---:|---|")
for m in models:
    cells, shared = [], []
    for t in ("1", "2"):
        for d in ("opt-fp32", "opt-int8", "opt-mixed"):
            v = []
            for r in (1, 2, 3):
                rows = [x for x in csv.DictReader(open(f"{m}.r{r}.csv")) if x["threads"] == t]
                if t == "2" and d == "opt-fp32":
                    shared.append(rows[0]["shared_core_rounds"])
                v.append(float([x for x in rows if x["deployment"] == d][0]["speedup_vs_ref"]))
            cells.append(f"{st.median(v):.2f}x")
    print(f"| {m} | " + " | ".join(cells) + " | " + " / ".join(shared) + " |")
