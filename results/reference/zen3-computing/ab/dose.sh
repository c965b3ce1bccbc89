#!/bin/bash
# The compute's duration: 300 and 500 us (1000 in ab.sh), 1 thread, MobileNetV2 and MobileNetV3-Large.
set -u
D=/tmp/q/busy; cd $D; X=$D/layerwise.exp
for M in mobilenetv2 mobilenetv3_large; do for E in 300 500; do
  T=$M.busy$E; mkdir -p $T; echo "$T $(date +%T)" >> log
  LW_EXP_BUSY_US=$E /usr/bin/time -f "%e s" $X profile --model $M --out $T/$M.lut.json --libs native,onednn --threads 1 --quiet 2> $T/profile.err
  $X bench --lut-dir $T --models $M --threads 1 --repeats 15 --labels onednn,opt-fp32 --out $T/b.csv --md $T/b.md --steps $T/steps.csv --quiet > /dev/null 2> $T/bench.err
done; done
echo done > finished.dose
