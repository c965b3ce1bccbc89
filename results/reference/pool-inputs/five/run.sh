#!/bin/bash
# The five bench models with the landed code: SqueezeNet 1.1 and GoogLeNet from ../thread-change's
# c/ profiles (206c801, 23:47-23:50 UTC), the other three profiled here (fdcab40); then one bench
# run of all five at 1 and 2 threads.
cd /tmp/q/five  # (ran there, 2026-11-29 00:15-00:29 UTC)
for M in mobilenetv2 mobilenetv3_large resnet50; do
  echo "profile $M $(date +%T) link $(/tmp/q/link 1)" >> log
  /usr/bin/time -f "$M %e s" ./layerwise profile --model $M --libs native,openblas,xnnpack,onednn --threads 1,2 --out luts/$M.lut.json --quiet > p.$M.out 2> p.$M.err
done
echo "bench $(date +%T) link $(/tmp/q/link 1)" >> log
./layerwise bench --lut-dir luts --threads 1,2 --repeats 11 --labels ref-fp32,opt-fp32,opt-int8 --near-wait 0 --recheck \
  --steps bench.steps.csv --out bench.csv --md bench.md --quiet > /dev/null 2> bench.err
echo "end $(date +%T) link $(/tmp/q/link 1)" >> log; echo done > finished
