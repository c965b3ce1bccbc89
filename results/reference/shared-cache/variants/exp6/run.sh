#!/bin/bash
set -u
L=/tmp/q/exp6/layerwise; cd /tmp/q/exp6
cp /work/main/build/explorer/layerwise $L
for r in 1 2; do for M in mobilenetv2 mobilenetv3_large resnet50; do
  [ $M = resnet50 ] && [ $r = 2 ] && continue
  for V in v4 v6; do
  case $V in v4) E="";; v6) E="LW_EXP_SPLIT_INPUT=1";; esac
  echo "$M $V r$r $(date +%T) $(cat /proc/loadavg)" >> bench.load
  env $E /usr/bin/time -f "%e s" $L bench --lut-dir /tmp/q/p5/luts --models $M --threads 1,2 --repeats 9 --labels opt-fp32,opt-int8 \
    --recheck --out $M.$V.r$r.csv --md $M.$V.r$r.md --steps $M.$V.r$r.steps.csv --quiet > /dev/null 2> $M.$V.r$r.err
done; done; done
echo done > finished
