#!/bin/bash
# Touch test: oneDNN steps' in-network time with their packed weights read just before (LW_EXP_TOUCH=1)
# against the same timing without the read (=2), alternated, 1 thread, the p80 LUTs.
set -u
for r in 1 2 3; do for M in mobilenetv2 mobilenetv3_large; do for e in 1 2; do
  LW_EXP_TOUCH=$e /tmp/q/layerwise.touch bench --lut-dir /tmp/q/p80/luts --models $M --threads 1 --repeats 15 \
    --labels opt-fp32,opt-int8 --out $M.e$e.r$r.csv --md $M.e$e.r$r.md --steps $M.e$e.r$r.steps.csv --quiet > /dev/null 2> $M.e$e.r$r.err
  echo "$M e$e r$r $(date +%T)" >> log
done; done; done
echo done > finished
