#!/bin/bash
# A/B of the int8 flush: MobileNetV2 and MobileNetV3-Large profiled by the old and new binary, then benches alternating.
cd /tmp/q/ab
for M in mobilenetv2 mobilenetv3_large; do for V in old new; do mkdir -p $V
  /usr/bin/time -f "%e s" ./bin.$V profile --model $M --out $V/$M.lut.json --libs native,openblas,xnnpack,onednn --threads 1,2 --quiet 2> $V/p.$M.err
done; done
for r in 1 2; do for M in mobilenetv2 mobilenetv3_large; do for V in old new; do
  ./bin.new bench --lut-dir $V --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed --recheck --out $V/$M.r$r.csv --md $V/$M.r$r.md --steps $V/$M.r$r.steps.csv --quiet > /dev/null 2> $V/$M.r$r.err
done; done; done
echo done > finished
