#!/bin/bash
# Alternating bench rounds on a/ (profiled with inputs written back in halves, both shared-line
# rates) and b/ (../shared-write/fresh/a: inputs read back by the caller, the write rate only),
# 2 threads, the order swapped every other round, one binary (206c801); run in /tmp/q/pi.
cd /tmp/q/pi; L=./layerwise2
for R in "$@"; do for M in squeezenet1_1 googlenet; do for V in a b; do [ $((R % 2)) = 0 ] && V=$([ $V = a ] && echo b || echo a)
  echo "$M $V r$R $(date +%T) link $(/tmp/q/link 1)" >> rlog
  $L bench --lut-dir $V --models $M --threads 2 --repeats 11 --labels opt-fp32,opt-int8 --near-wait 0 --recheck \
    --steps $M.$V.r$R.steps.csv --out $M.$V.r$R.csv --md $M.$V.r$R.md --quiet > /dev/null 2> $M.$V.r$R.err
done; done; done
echo "end $(date +%T) link $(/tmp/q/link 1)" >> rlog; echo done > rfinished
