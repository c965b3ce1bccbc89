#!/bin/bash
set -u
L=/tmp/q/p6/layerwise; O=/tmp/q/p6; cd $O; mkdir -p luts; cp /work/main/build/explorer/layerwise /tmp/q/p6/layerwise
for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do
  LIBS=native,openblas,xnnpack,onednn; [ $M = resnet50 ] && LIBS=native,openblas,xnnpack,torch,onednn
  uptime > p.$M.profile.load
  /usr/bin/time -f "%e s wall %U+%S s cpu" $L profile --model $M --out luts/$M.lut.json --libs $LIBS --threads 1,2 --quiet 2> p.$M.profile.err
done
echo done > prof.finished
