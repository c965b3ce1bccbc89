# Per model and LUT variant: each deployment's prediction and the median of its measured
# rounds, from DIR/<variant>/<model>.bench.<round>.csv (flush-floor/, flush-wino/, and
# flush-wino/interleaved/ each ran it on its own folder).
# Usage: python3 agg.py DIR VARIANT... (e.g. python3 agg.py flush-floor ship floor)
import csv, glob, os, statistics as st, sys

D, variants = sys.argv[1], sys.argv[2:]
models = sorted({os.path.basename(f).split('.bench.')[0] for f in glob.glob(f'{D}/{variants[0]}/*.bench.*.csv')})
for m in models:
    for v in variants:
        files = sorted(glob.glob(f'{D}/{v}/{m}.bench.*.csv'))
        if not files: continue
        by = {}
        for f in files:
            for x in csv.DictReader(open(f)):
                by.setdefault(x['deployment'], (float(x['predicted_ms']), []))[1].append(float(x['measured_ms']))
        print(f'{m:18s} {v:5s} n={len(files)} ' + ' | '.join(
            f"{d} {p:.2f}/{st.median(ms):.2f} ({(st.median(ms)/p-1)*100:+.1f}%)" for d, (p, ms) in by.items()))
