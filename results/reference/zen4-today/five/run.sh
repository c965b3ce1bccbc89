#!/bin/bash
# The five bench models with HEAD's code on this Zen 4 VM: profile all five, then one bench run at 1 and 2 threads.
cd /tmp/q/five
for M in squeezenet1_1 googlenet mobilenetv2 mobilenetv3_large resnet50; do
  echo "profile $M $(date +%T) link $(/tmp/q/link 1)" >> log
  /usr/bin/time -f "$M %e s" ./layerwise profile --model $M --libs native,openblas,xnnpack,onednn --threads 1,2 --out luts/$M.lut.json --quiet > p.$M.out 2> p.$M.err
done
echo "bench $(date +%T) link $(/tmp/q/link 1)" >> log
./layerwise bench --lut-dir luts --threads 1,2 --repeats 11 --labels ref-fp32,opt-fp32,opt-int8,opt-mixed --near-wait 0 --recheck \
  --steps bench.steps.csv --out bench.csv --md bench.md --quiet > /dev/null 2> bench.err
echo "end $(date +%T) link $(/tmp/q/link 1)" >> log; echo done > finished
