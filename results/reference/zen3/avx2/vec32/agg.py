# Medians of the three alternating rounds of ab.sh, old (64-byte Vec) against new (32-byte).
import csv, collections, gzip, statistics
t = collections.defaultdict(list)
for row in csv.reader(gzip.open('w.csv.gz', 'rt')):
    t[(row[2], row[0])].append(float(row[4]))
print('| layer / implementation | 64-byte Vec ms | 32-byte Vec ms | ratio |')
print('|---|---:|---:|---:|')
for n in sorted({k[0] for k in t}):
    o, w = statistics.median(t[(n, 'old')]), statistics.median(t[(n, 'new')])
    print(f"| {n.replace('resnet50/', '')} | {o:.2f} | {w:.2f} | {o / w:.2f} |")
