#!/bin/bash
# Protocol variants, judged by measured / rechecked (bench --recheck) on the same LUTs.
set -u
L=/tmp/q/exp2/layerwise; cd /tmp/q/exp2
cp /work/main/build/explorer/layerwise $L
for r in 1 2; do for M in mobilenetv2 resnet50; do for V in v0 v1 v2; do
  case $V in v0) E="";; v1) E="LW_EXP_FLUSH_MIN=32";; v2) E="LW_EXP_FLUSH_MIN=32 LW_EXP_TOUCH_OUT=1";; esac
  echo "$M $V r$r $(date +%T) $(cat /proc/loadavg)" >> bench.load
  env $E /usr/bin/time -f "%e s" $L bench --lut-dir /tmp/q/luts --models $M --threads 1,2 --repeats 9 --labels opt-fp32,opt-int8 \
    --recheck --out $M.$V.r$r.csv --md $M.$V.r$r.md --steps $M.$V.r$r.steps.csv --quiet > /dev/null 2> $M.$V.r$r.err
done; done; done
echo done > finished
