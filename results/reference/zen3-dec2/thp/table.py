# THP A/B table: per variant, opt-fp32 predicted / rechecked / measured (1 thread) and the
# oneDNN f32 conv steps' network / LUT (sums of step means). Run in thp/.
import csv, glob, gzip, os
print("| variant | onednn predicted ms | onednn measured | opt-fp32 predicted ms | rechecked | measured | gap | oneDNN f32 conv steps: network / LUT |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for d in sorted(glob.glob("*.*.[12]")):
    rows = {r["deployment"]: r for r in csv.DictReader(open(f"{d}/b.csv")) if r["threads"] == "1"}
    o, b = rows["opt-fp32"], rows["onednn"]
    op = lambda f: gzip.open(f, "rt") if f.endswith(".gz") else open(f)
    sf = f"{d}/steps.csv" if os.path.exists(f"{d}/steps.csv") else f"{d}/steps.csv.gz"
    m = l = 0.0
    for r in csv.DictReader(op(sf)):
        if r["deployment"] == "opt-fp32" and r["threads"] == "1" and r["name"].startswith("conv2d") and "_onednn_" in r["name"] and "_f32_" in r["name"]:
            m += float(r["mean_ms"]); l += float(r["lut_ms"])
    p, mm = float(o["predicted_ms"]), float(o["measured_ms"])
    print(f"| {d} | {float(b['predicted_ms']):.2f} | {float(b['measured_ms']):.2f} | {p:.2f} | {float(o['recheck_ms']):.2f} | {mm:.2f} | {100*(mm/p-1):+.1f} % | {m/l:.2f} |")
