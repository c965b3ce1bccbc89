#!/bin/bash
# The second touch test: before each oneDNN step, read its output buffer and workspace (3), or
# those and its packed weights (4), against no read (2); alternated, 1 thread, the p80 LUTs.
set -u
for r in 1 2 3 4; do for M in mobilenetv2 mobilenetv3_large; do for e in 2 3 4; do
  LW_EXP_TOUCH=$e /tmp/q/layerwise.touch2 bench --lut-dir /tmp/q/p80/luts --models $M --threads 1 --repeats 15 \
    --labels opt-fp32,opt-int8 --out t2.$M.e$e.r$r.csv --md t2.$M.e$e.r$r.md --steps t2.$M.e$e.r$r.steps.csv --quiet > /dev/null 2> t2.$M.e$e.r$r.err
done; done; done
echo done > finished2
