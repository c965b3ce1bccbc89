#!/bin/bash
# Prediction runs only (step 3 of run.sh) on the LUTs of OUT1, into OUT2.
set -u
L=/work/main/build/explorer/layerwise; I=$1; O=$2; mkdir -p $O; cd $O
MODELS="resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet"
for r in 1 2 3; do for M in $MODELS; do
  uptime >> bench.load
  $L bench --lut-dir $I/luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed \
    --out $M.r$r.csv --md $M.r$r.md --steps $M.r$r.steps.csv --quiet > /dev/null 2> $M.r$r.err
done; done
echo done > finished
