#!/bin/bash
# The mean-cost trial (2026-11-28, Zen 5 VM): fresh LUTs of the five bench models with the
# binary that records means (a), a copy of them timed inside the network (b: lut refine), then
# two rounds of bench per model with a and with b one after the other (recheck: the drift).
# usage: run.sh OUT (e.g. /tmp/q/p71)
set -u
O=$1; mkdir -p $O; cd $O
bash /work/main/results/reference/recheck/profile.sh $O > profile.out 2>&1
mkdir -p r/luts; cp luts/*.lut.json r/luts/
for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do
  /usr/bin/time -f "%e s" ./layerwise lut refine r/luts/$M.lut.json > r.$M.refine.out 2>&1
done
noise() { for c in 0 1; do echo "cpu$c alone: $(taskset -c $c /tmp/q/vcpu_speed)"; done; }
mkdir -p pred; noise > pred/noise.before.txt
for R in 1 2; do for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do
  for V in a b; do D=$O/luts; [ $V = b ] && D=$O/r/luts
    echo "$M r$R $V $(date +%T) $(cat /proc/loadavg)" >> pred/bench.load
    ./layerwise bench --lut-dir $D --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed \
      --recheck --near-wait 60 --out pred/$M.$V.r$R.csv --md pred/$M.$V.r$R.md --steps pred/$M.$V.r$R.steps.csv --quiet > /dev/null 2> pred/$M.$V.r$R.err
  done
done; done
noise > pred/noise.after.txt
echo done > finished
