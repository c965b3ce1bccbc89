#!/bin/bash
# 2-thread prediction round on the previous session's LUTs (/tmp/q/p74/luts), waiting up to
# 60 s per round for the cores to sit as in each LUT's profile.
L=/tmp/q/lw_fin
for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do
  $L bench --lut-dir /tmp/q/p74/luts --models $M --threads 2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed \
    --near-wait 60 --steps $M.steps.csv --out $M.csv --md $M.md --quiet 2> $M.err
done
echo done > finished
