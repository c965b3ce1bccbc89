#!/bin/bash
# MobileNetV2 and V3-Large after the residual read-back (6d76dad): fresh LUTs, then two rounds
# of the prediction bench (opt-fp32, opt-int8, opt-mixed; 1 and 2 threads).
cd /tmp/q/p18
for M in mobilenetv2 mobilenetv3_large; do
  /usr/bin/time -f "%e s wall %U+%S s cpu" ./layerwise profile --model $M --out luts/$M.lut.json --libs native,openblas,xnnpack,onednn --threads 1,2 --quiet 2> p.$M.profile.err
done
for r in 1 2; do for M in mobilenetv2 mobilenetv3_large; do
  ./layerwise bench --lut-dir luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed --recheck --out $M.r$r.csv --md $M.r$r.md --steps $M.r$r.steps.csv --quiet 2> $M.r$r.err
done; done
echo done > finished
