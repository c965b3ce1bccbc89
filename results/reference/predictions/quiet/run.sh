#!/bin/bash
L=/work/main/build/explorer/layerwise
cd /tmp/quiet
for M in squeezenet1_1 mobilenetv2; do
  uptime > $M.profile.load
  /usr/bin/time -f "%e s wall %U+%S s cpu" $L profile --model $M --out luts/$M.lut.json --libs native,openblas,xnnpack,onednn --threads 1,2 --early-stop 0 --quiet 2> $M.profile.err
done
for r in 1 2 3; do for M in squeezenet1_1 mobilenetv2; do
  uptime >> bench.load
  $L bench --lut-dir luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8 --out $M.r$r.csv --md $M.r$r.md --steps $M.r$r.steps.csv --quiet > /dev/null 2> $M.r$r.err
done; done
echo done > finished
