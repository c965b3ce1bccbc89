#!/bin/bash
# Alternating A/B at 2 threads, the five bench models: LUTs a (the p74 profiles + runtime-only with
# the shared-write rate) and b (the same without the rate), opt-fp32 and opt-int8, 11 interleaved
# repeats each, no waiting for near cores (the host moves them; bench logs the link per run).
cd /tmp/q/sw/r3
L=/tmp/q/sw/layerwise3
for R in 1 2 3 4; do for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do
  for V in a b; do [ $((R % 2)) = 0 ] && V=$([ $V = a ] && echo b || echo a)
  echo "$M $V r$R $(date +%T) link $(/tmp/q/link 1)" >> log
  $L bench --lut-dir /tmp/q/sw/$V --models $M --threads 2 --repeats 11 --labels opt-fp32,opt-int8 \
    --near-wait 0 --steps $M.$V.r$R.steps.csv --out $M.$V.r$R.csv --md $M.$V.r$R.md --quiet 2> $M.$V.r$R.err
done; done; done
echo "end $(date +%T) link $(/tmp/q/link 1)" >> log
echo done > finished
