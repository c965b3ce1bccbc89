#!/bin/bash
cd /tmp/q/p15
M4="googlenet squeezenet1_1"
for M in $M4; do
  LIBS=native,openblas,xnnpack,onednn; [ $M = resnet50 ] && LIBS=native,openblas,xnnpack,torch,onednn
  /usr/bin/time -f "%e s wall %U+%S s cpu" ./layerwise profile --model $M --out luts/$M.lut.json --libs $LIBS --threads 1,2 --quiet 2> p.$M.profile.err
  python3 mkbefore.py luts/$M.lut.json before/$M.lut.json >> mark.log
done
for k in 1 2; do
  for v in after before; do
    D=luts; [ $v = before ] && D=before
    ./layerwise bench --lut-dir $D --models googlenet,squeezenet1_1 --threads 1,2 --repeats 10 --labels ref-fp32,opt-fp32,opt-int8,opt-mixed --out ab.$v.$k.csv --md ab.$v.$k.md --steps ab.$v.$k.steps.csv --quiet 2> ab.$v.$k.err
  done
done
echo done > finished
