#!/bin/bash
# A/B of oneDNN's qc7 int8 on the same fresh LUTs (profile.sh D): "after" as profiled, "before"
# with the qc7 implementations marked unsupported (mkbefore.py); two rounds of bench each, in
# alternation. usage: ab.sh D
D=${1:-/tmp/q/p60}
cd $D
mkdir -p before
for f in luts/*.lut.json; do python3 /work/main/results/reference/zen3/qc7/mkbefore.py $f before/$(basename $f); done > before.txt
uptime > ab.load
for k in 1 2; do
  for v in after before; do
    L=luts; [ $v = before ] && L=before
    ./layerwise bench --lut-dir $L --threads 1,2 --repeats 10 --labels ref-fp32,xnnpack,opt-fp32,opt-int8,opt-mixed \
      --near-wait 60 --out ab.$v.$k.csv --md ab.$v.$k.md --quiet 2> ab.$v.$k.err
    uptime >> ab.load
  done
done
echo done > ab.finished
