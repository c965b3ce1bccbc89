#!/bin/bash
# A/B: 2-thread predictions with hand-offs measured on 20 us items (A, the old binary) and on the network's typical step (B)
set -u
cd /tmp/s29
MODELS="resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet"
for r in 1 2; do for S in A B; do for M in $MODELS; do
  echo "$S $M r$r $(date +%T) $(cat /proc/loadavg)" >> ab.load
  ./lw.new bench --lut-dir $S/luts --models $M --threads 2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed \
    --recheck --out $S/$M.r$r.csv --md $S/$M.r$r.md --steps $S/$M.r$r.steps.csv --quiet > /dev/null 2> $S/$M.r$r.err
done; done; done
echo done > ab.finished
