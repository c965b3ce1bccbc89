# Per model and LUT: each deployment's prediction and the median of its measured rounds.
import csv, glob, statistics as st, sys
D = sys.argv[1] if len(sys.argv) > 1 else '/tmp/ff'
for m in ['googlenet', 'mobilenetv2']:
    for v in ['ship', 'wino']:
        files = sorted(glob.glob(f'{D}/{v}/{m}.bench.*.csv'))
        if not files: continue
        by = {}
        for f in files:
            for x in csv.DictReader(open(f)):
                by.setdefault(x['deployment'], (float(x['predicted_ms']), []))[1].append(float(x['measured_ms']))
        print(f'{m:18s} {v:5s} n={len(files)} ' + ' | '.join(
            f"{d} {p:.2f}/{st.median(ms):.2f} ({(st.median(ms)/p-1)*100:+.1f}%)" for d, (p, ms) in by.items()))
