#!/bin/bash
# A/B of the shared-write charge at 2 threads: LUTs a (the p74 profiles + runtime-only with the rate)
# and b (the same without it), alternating per model; 15 interleaved repeats of each deployment.
cd /tmp/q/sw/r
L=/tmp/q/sw/layerwise
for R in 1; do for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do for V in a b; do
  echo "$M $V r$R $(date +%T) link $(/tmp/q/link 1)" >> log
  $L bench --lut-dir /tmp/q/sw/$V --models $M --threads 2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed \
    --near-wait 60 --steps $M.$V.r$R.steps.csv --out $M.$V.r$R.csv --md $M.$V.r$R.md --quiet 2> $M.$V.r$R.err
done; done; done
echo "end $(date +%T) link $(/tmp/q/link 1)" >> log
echo done > finished
