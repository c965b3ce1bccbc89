#!/bin/bash
# 15 more interleaved rounds of the native deployment on the shipped and the 24/64-MiB-flush LUTs.
cd /tmp/fl  # (copied here from /tmp/fl)
B=/work/main/build/explorer/layerwise
for r in $(seq 6 20); do for v in ship f24 f64; do
  $B bench --lut-dir $v --models squeezenet1_1 --threads 1 --repeats 10 --labels ref-fp32,native --steps $v/steps.$r.csv --out $v/bench.$r.csv --quiet > /dev/null 2> $v/bench.$r.err
done; done
echo done > more.finished
