#!/bin/bash
# A/B of the computing before each cold run: --computing-us 500 (default) against 150, fresh
# LUTs of MobileNetV2 (native, onednn, xnnpack; 1 thread) each round, order alternating, then
# one bench on each LUT; profile times and predicted / measured per deployment.
set -u
cd /work/main
L=/work/main/build/explorer/layerwise
O=${1:-/tmp/s76/cu}  # (run as in this folder: its r*-c* folders are kept here)
for r in 1 2 3; do
  order="500 150"; [ $((r % 2)) -eq 0 ] && order="150 500"
  for c in $order; do
    d=$O/r$r-c$c; mkdir -p $d
    /usr/bin/time -f "%e" -o $d/profile.s $L profile --model mobilenetv2 --libs native,onednn,xnnpack --threads 1 \
      --computing-us $c --out $d/mobilenetv2.lut.json --quiet > $d/profile.out 2>&1
  done
  for c in $order; do
    d=$O/r$r-c$c
    $L bench --lut-dir $d --models mobilenetv2 --threads 1 --labels onednn,opt-fp32,opt-int8 --repeats 7 \
      --out $d/bench.csv --quiet > $d/bench.md 2> $d/bench.err
  done
done
echo done > $O/finished
