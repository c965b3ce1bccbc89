#!/bin/bash
# Same LUTs (pthreadpool-profiled), old binary vs the omp-pthreadpool prototype, 2 threads, alternating.
set -u
P=/tmp/q/p55/ab2; mkdir -p $P/old $P/omp
for r in 1 2; do for M in squeezenet1_1 googlenet mobilenetv3_large; do for V in old omp; do
  echo "$M $V r$r $(date +%T) $(cat /proc/loadavg)" >> $P/ab.load
  /tmp/q/dw/layerwise.$V bench --lut-dir /tmp/q/p55/old/luts --models $M --threads 2 --repeats 15 --labels onednn,xnnpack,opt-fp32,opt-int8,opt-mixed \
    --near-wait 60 --out $P/$V/$M.r$r.csv --md $P/$V/$M.r$r.md --steps $P/$V/$M.r$r.steps.csv --quiet > /dev/null 2> $P/$V/$M.r$r.err
done; done; done
echo done > $P/finished
