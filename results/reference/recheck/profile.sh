#!/bin/bash
# The five LUTs, profiled into OUT/luts (default /tmp/q) with a copy of the built binary,
# so that a rebuild meanwhile changes nothing: recheck/ ran it as `profile.sh`,
# shared-cache/ as `profile.sh /tmp/q/p5`, conversions/ as `profile.sh /tmp/q/p6`.
set -u
O=${1:-/tmp/q}; L=$O/layerwise; mkdir -p $O/luts; cd $O; cp /work/main/build/explorer/layerwise $L
for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do
  LIBS=native,openblas,xnnpack,onednn; [ $M = resnet50 ] && LIBS=native,openblas,xnnpack,torch,onednn
  uptime > p.$M.profile.load
  /usr/bin/time -f "%e s wall %U+%S s cpu" $L profile --model $M --out luts/$M.lut.json --libs $LIBS --threads 1,2 --quiet 2> p.$M.profile.err
done
echo done > prof.finished
