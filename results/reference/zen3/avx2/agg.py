import gzip,csv,collections,statistics,sys
t=collections.defaultdict(list)
for row in csv.reader(gzip.open(sys.argv[1] if len(sys.argv)>1 else 'ab.csv.gz','rt')):
    if row[2]=='name': continue
    t[(row[2],row[0])].append(float(row[4]))
names=sorted({k[0] for k in t})
print('| layer / implementation | generic ms | avx2 ms | generic / avx2 |'); print('|---|---:|---:|---:|')
for n in names:
    g=statistics.median(t[(n,'generic')]); a=statistics.median(t[(n,'avx2')])
    print(f"| {n.replace('resnet50/','')} | {g:.2f} | {a:.2f} | {g/a:.2f} |")
