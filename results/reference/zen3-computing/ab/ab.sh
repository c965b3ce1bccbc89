#!/bin/bash
# A/B: the profiler's runs after 1 ms of GEMMs on private buffers (LW_EXP_BUSY_US, experiment
# build; the same binary with the variable unset is the landed protocol), 1 thread; bench alike.
set -u
D=/tmp/q/busy; cd $D; X=$D/layerwise.exp
for it in 1 2; do for M in mobilenetv2 mobilenetv3_large resnet50; do for v in base busy; do
  [ $M = resnet50 ] && [ $it = 2 ] && continue
  T=$M.$v.$it; mkdir -p $T; echo "$T $(date +%T)" >> log
  if [ $v = busy ]; then E=1000; else E=0; fi
  LW_EXP_BUSY_US=$E /usr/bin/time -f "%e s" $X profile --model $M --out $T/$M.lut.json --libs native,onednn --threads 1 --quiet 2> $T/profile.err
  $X bench --lut-dir $T --models $M --threads 1 --repeats 15 --labels onednn,opt-fp32 --out $T/b.csv --md $T/b.md --steps $T/steps.csv --quiet > /dev/null 2> $T/bench.err
done; done; done
echo done > finished
