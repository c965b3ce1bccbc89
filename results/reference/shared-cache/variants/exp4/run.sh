#!/bin/bash
set -u
L=/tmp/q/exp4/layerwise; cd /tmp/q/exp4
cp /work/main/build/explorer/layerwise $L
for r in 1 2; do for M in mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet resnet50; do for V in v0 v4 v5; do
  case $V in v0) E="";; v3) E="LW_EXP_FLUSH_MIN=32 LW_EXP_TOUCH_OUT=1 LW_EXP_PAR_FLUSH=1";;
    v4) E="LW_EXP_FLUSH_MIN=32 LW_EXP_TOUCH_OUT=1 LW_EXP_PAR_FLUSH=1 LW_EXP_WAKE=1";; v5) E="LW_EXP_WAKE=1";; esac
  echo "$M $V r$r $(date +%T) $(cat /proc/loadavg)" >> bench.load
  env $E /usr/bin/time -f "%e s" $L bench --lut-dir /tmp/q/luts --models $M --threads 1,2 --repeats 9 --labels opt-fp32,opt-int8 \
    --recheck --out $M.$V.r$r.csv --md $M.$V.r$r.md --steps $M.$V.r$r.steps.csv --quiet > /dev/null 2> $M.$V.r$r.err
done; done; done
echo done > finished
