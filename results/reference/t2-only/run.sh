#!/bin/bash
# 2-thread deployments with and without 1-thread steps, on a host whose two vCPUs sit far apart.
# Fresh LUTs of the five bench models (a), a copy without 1-thread implementations (o), then two
# rounds, model by model, of bench at 2 threads with a and with o one after the other.
# No Ref-FP32 in either: o cannot plan it (1-thread layers), and what runs between the rounds
# moves the 2-thread deployments here (try1/: the same MobileNetV2 deployment 3.60 ms between
# Ref-FP32's rounds, 4.23 ms without them). A profile already finished in OUT is reused.
# usage: run.sh OUT (e.g. /tmp/q/p74)
set -u
O=$1; H=/work/main/results/reference/t2-only; mkdir -p $O; cd $O
[ -f prof.finished ] || bash /work/main/results/reference/recheck/profile.sh $O > profile.out 2>&1
mkdir -p o/luts
for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do
  python3 $H/t2only.py luts/$M.lut.json o/luts/$M.lut.json >> o/dropped.txt
done
mkdir -p pred
for R in 1 2; do for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do
  for V in a o; do D=$O/luts; [ $V = o ] && D=$O/o/luts
    echo "$M r$R $V $(date +%T) $(cat /proc/loadavg)" >> pred/bench.load
    ./layerwise bench --lut-dir $D --models $M --threads 2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed \
      --recheck --near-wait 60 --out pred/$M.$V.r$R.csv --md pred/$M.$V.r$R.md --steps pred/$M.$V.r$R.steps.csv --quiet > /dev/null 2> pred/$M.$V.r$R.err
  done
done; done
echo done > finished
