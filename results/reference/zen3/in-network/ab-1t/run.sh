#!/bin/bash
# A/B at 1 thread in one window: the profiler's figures (alone) against the same LUTs refined in the network.
set -u
cd /tmp/q/ab; cp /work/main/build/explorer/layerwise ./layerwise
for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do
  /usr/bin/time -f "%e s" ./layerwise lut refine refined/luts/$M.lut.json --quiet > refined/$M.refine.txt 2> refined/$M.refine.err
done
for r in 1 2; do for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do for V in alone refined; do
  echo "$V $M r$r $(date +%T) $(cat /proc/loadavg)" >> bench.load
  ./layerwise bench --lut-dir $V/luts --models $M --threads 1 --repeats 10 --labels opt-fp32,opt-int8,opt-mixed --recheck \
    --out $V/$M.r$r.csv --md $V/$M.r$r.md --steps $V/$M.r$r.steps.csv --quiet > /dev/null 2> $V/$M.r$r.err
done; done; done
echo done > finished
