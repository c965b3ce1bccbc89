#!/bin/bash
# Alternating bench rounds (their numbers as arguments) on the LUTs in a/ (with the shared-write
# rate) and b/ (without), 2 threads, the order swapped every other round; run in /tmp/q/sw/fresh.
cd /tmp/q/sw/fresh; L=./layerwise
for R in "$@"; do for M in squeezenet1_1 googlenet; do for V in a b; do [ $((R % 2)) = 0 ] && V=$([ $V = a ] && echo b || echo a)
  echo "$M $V r$R $(date +%T) link $(/tmp/q/link 1)" >> log
  $L bench --lut-dir $V --models $M --threads 2 --repeats 11 --labels opt-fp32,opt-int8 \
    --near-wait 0 --steps $M.$V.r$R.steps.csv --out $M.$V.r$R.csv --md $M.$V.r$R.md --quiet 2> $M.$V.r$R.err
done; done; done
echo "end $(date +%T) link $(/tmp/q/link 1)" >> log; echo done > finished
