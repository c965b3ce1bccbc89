#!/bin/bash
NEW=/tmp/ho/lw_bin
cd /tmp/ho/run
for M in squeezenet1_1 mobilenetv2 mobilenetv3_large googlenet resnet50; do
  uptime > $M.r4.load
  nice -n 5 $NEW bench --lut-dir /tmp/ho/luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8 \
    --out $M.r4.csv --md $M.r4.md --steps $M.r4.steps.csv --quiet > /dev/null 2> $M.r4.err
done
echo done > r4.finished
