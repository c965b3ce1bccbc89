#!/bin/bash
# Four more alternating rounds (5-8) on run.sh's LUTs (a, b), the same bench command.
cd /tmp/q/sw/fresh; L=./layerwise
for R in 5 6 7 8; do for M in squeezenet1_1 googlenet; do for V in a b; do [ $((R % 2)) = 0 ] && V=$([ $V = a ] && echo b || echo a)
  echo "$M $V r$R $(date +%T) link $(/tmp/q/link 1)" >> log
  $L bench --lut-dir $V --models $M --threads 2 --repeats 11 --labels opt-fp32,opt-int8 \
    --near-wait 0 --steps $M.$V.r$R.steps.csv --out $M.$V.r$R.csv --md $M.$V.r$R.md --quiet 2> $M.$V.r$R.err
done; done; done
echo "end $(date +%T) link $(/tmp/q/link 1)" >> log; echo done > finished
