#!/bin/bash
# Six more alternations of e2e.sh's benches (20 rounds each) on the same LUTs.
cd /tmp/ab
for r in 3 4 5 6 7 8; do
  for b in old new; do
    uptime >> bench.load
    ./layerwise_$b bench --lut-dir luts_$b --models squeezenet1_1,googlenet --threads 1 --repeats 20 --labels ref-fp32,native,opt-fp32 --out bench_$b.r$r.csv --md bench_$b.r$r.md --quiet > /dev/null 2>> bench.err
  done
done
echo done > e2e_more.finished
