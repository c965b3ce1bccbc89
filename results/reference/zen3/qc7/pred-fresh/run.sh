#!/bin/bash
# Fresh LUTs of SqueezeNet and GoogLeNet, then three prediction rounds each right after.
set -u; cd /tmp/q/p64; L=./layerwise
for M in squeezenet1_1 googlenet; do
  uptime > p.$M.profile.load
  /usr/bin/time -f "%e s wall %U+%S s cpu" $L profile --model $M --out luts/$M.lut.json --libs native,openblas,xnnpack,onednn --threads 1,2 --quiet 2> p.$M.profile.err
done
for r in 1 2 3; do for M in squeezenet1_1 googlenet; do
  echo "$M r$r $(date +%T) $(cat /proc/loadavg)" >> bench.load
  $L bench --lut-dir luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed --recheck --near-wait 60 --out $M.r$r.csv --md $M.r$r.md --steps $M.r$r.steps.csv --quiet > /dev/null 2> $M.r$r.err
done; done
echo done > finished
