# The A/B table of README.md: means over the two runs of each build, ratios per run.
import csv, collections, statistics
d = collections.defaultdict(list)
for v in ['avx2', 'generic']:
    for r in [1, 2]:
        for row in csv.DictReader(open(f'{v}.r{r}.csv')):
            d[(row['model'], row['threads'], v, row['deployment'])].append(float(row['measured_ms']))
print('| model | threads | native build | ref-fp32 ms | native ms | onednn ms | opt-fp32 ms | opt-fp32 vs ref-fp32 (run 1 / run 2) | opt-fp32 vs onednn |')
print('|---|---:|---|---:|---:|---:|---:|---:|---:|')
for m in ['resnet50', 'squeezenet1_1', 'googlenet']:
    for t in ['1', '2']:
        for v in ['avx2', 'generic']:
            ref, nat, one, opt = (d[(m, t, v, x)] for x in ('ref-fp32', 'native', 'onednn', 'opt-fp32'))
            rat = [a / b for a, b in zip(ref, opt)]
            print(f"| {m} | {t} | {v} | {statistics.mean(ref):.2f} | {statistics.mean(nat):.2f} | {statistics.mean(one):.2f} | "
                  f"{statistics.mean(opt):.2f} | {rat[0]:.2f}x / {rat[1]:.2f}x | {statistics.mean(one) / statistics.mean(opt):.2f}x |")
