import csv, glob, statistics, collections
for V in ("old", "new"):
    acc = collections.defaultdict(list)
    for f in sorted(glob.glob(f"./{V}/*.r?.csv")):
        for r in csv.DictReader(open(f)):
            if r["status"] != "ok": continue
            p, m, c = float(r["predicted_ms"]), float(r["measured_ms"]), float(r["recheck_ms"])
            acc[(r["model"], r["threads"], r["deployment"])].append((p, m, c, r["speed_ratio_t1"], r["speed_ratio_t2"], r["core_link_ns"]))
    print(V)
    for k, v in sorted(acc.items()):
        print(" ", *k, " ".join(f"p{x[0]:.2f} m{x[1]:.2f} c{x[2]:.2f} gap{100*(x[1]/x[0]-1):+.1f} model{100*(x[1]/x[2]-1):+.1f} sp{x[3]}/{x[4]} link{x[5]}" for x in v))
