#!/bin/bash
# 2-thread bench of SqueezeNet and MobileNetV2 on the B LUTs, with and without a nice-19 spinner on cpu1
set -u
cd /tmp/s29; mkdir -p awake
for r in 1 2; do for w in 0 1; do
  if [ $w = 1 ]; then nice -n 19 taskset -c 1 ./spinner 400 & SP=$!; fi
  ./lw.new bench --lut-dir B/luts --models squeezenet1_1,mobilenetv2 --threads 2 --repeats 15 --labels opt-fp32,opt-int8 \
    --out awake/w$w.r$r.csv --steps awake/w$w.r$r.steps.csv --quiet > /dev/null 2> awake/w$w.r$r.err
  if [ $w = 1 ]; then kill $SP; wait $SP 2>/dev/null; fi
done; done
echo done > awake/finished
