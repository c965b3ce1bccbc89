#!/bin/bash
# A/B: the profiler's 1-thread runs after ~2 ms of the implementation running (LW_EXP_SUSTAIN_MS,
# experiment build) against the landed protocol, MobileNetV2 1 thread; bench with the landed binary.
set -u
D=/tmp/q/sus; mkdir -p $D; cd $D; L=/tmp/q/p92/layerwise; X=/tmp/q/layerwise.sustain
M=mobilenetv2
for it in 1 2; do for v in base sustain; do
  T=$v.$it; mkdir -p $T; echo "$T $(date +%T)" >> log
  if [ $v = sustain ]; then LW_EXP_SUSTAIN_MS=2 /usr/bin/time -f "%e s" $X profile --model $M --out $T/$M.lut.json --libs native,onednn --threads 1 --quiet 2> $T/profile.err
  else /usr/bin/time -f "%e s" $L profile --model $M --out $T/$M.lut.json --libs native,onednn --threads 1 --quiet 2> $T/profile.err; fi
  $L bench --lut-dir $T --models $M --threads 1 --repeats 15 --labels onednn,opt-fp32 --out $T/b.csv --md $T/b.md --steps $T/steps.csv --quiet > /dev/null 2> $T/bench.err
done; done
echo done > finished
