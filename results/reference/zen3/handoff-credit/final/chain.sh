#!/bin/bash
# 1) fresh LUTs with the new binary; 2) A/B at 2 threads: old binary + p55 LUTs (pthreadpool) vs
# new binary + p56 LUTs (libgomp's team), alternating, two rounds; 3) pred.sh on p56.
set -u
bash /work/main/results/reference/recheck/profile.sh /tmp/q/p56
cp /tmp/q/p56/layerwise /tmp/q/dw/layerwise.new
P=/tmp/q/p56/ab; mkdir -p $P/old $P/new
for r in 1 2; do for M in squeezenet1_1 googlenet mobilenetv3_large; do
  for V in old new; do
    if [ $V = old ]; then B=/tmp/q/dw/layerwise.old; L=/tmp/q/p55/luts; else B=/tmp/q/dw/layerwise.new; L=/tmp/q/p56/luts; fi
    echo "$M $V r$r $(date +%T) $(cat /proc/loadavg)" >> $P/ab.load
    $B bench --lut-dir $L --models $M --threads 1,2 --repeats 15 --labels ref-fp32,onednn,xnnpack,opt-fp32,opt-int8,opt-mixed \
      --near-wait 60 --out $P/$V/$M.r$r.csv --md $P/$V/$M.r$r.md --steps $P/$V/$M.r$r.steps.csv --quiet > /dev/null 2> $P/$V/$M.r$r.err
  done; done; done
echo done > $P/finished
BENCH_EXTRA="--near-wait 60" bash /work/main/results/reference/recheck/pred.sh /tmp/q/pred56 /tmp/q/p56
echo done > /tmp/q/p56/chain.finished
