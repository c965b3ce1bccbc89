#!/bin/bash
# bench_conv A/B of binaries /tmp/bench_<name> (here old = 615f494, fin = the new GEMM and
# blocks): six alternations, 3 repetitions of 0.05 s each, then per benchmark the minimum and
# the median of the 18 runs of each binary, and last / first.
# usage: ab.sh OUT FILTER NAME... ; as run:
#   bash ab.sh ab.txt '(resnet50/layer[1-4].[01].conv2.*f[246]_fused|squeezenet1_1/fire[2-9].*f[46]|googlenet/.*f[46])_t1$' old fin
out=$1; F=$2; shift 2
: > "$out"
for r in 1 2 3 4 5 6; do for b in "$@"; do
  /tmp/bench_$b --benchmark_filter="$F" --benchmark_min_time=0.05 --benchmark_repetitions=3 2>&1 |
    grep -E '^(res|goo|squ|mob)' | grep -v -E '_(mean|median|stddev|cv) ' | awk -v b=$b '{print b, $1, $2, $4}'
done; done >> "$out"
python3 - "$out" "$@" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    b, name, ms, _ = line.split()
    d[name][b].append(float(ms))
bins = sys.argv[2:]
print('| benchmark (1 thread) | ' + ' | '.join(f'{b} min ms | {b} median ms' for b in bins) + ' | min: last / first | median: last / first |')
print('|---|' + '---:|' * (2 * len(bins) + 2))
for name in sorted(d):
    mins = [min(d[name][b]) for b in bins]
    meds = [statistics.median(d[name][b]) for b in bins]
    cells = ' | '.join(f'{a:.3f} | {m:.3f}' for a, m in zip(mins, meds))
    print(f'| {name.replace("conv2d_nhwc_f32_native_", "")} | {cells} | {mins[-1] / mins[0]:.3f} | {meds[-1] / meds[0]:.3f} |')
PY
