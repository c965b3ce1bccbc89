#!/bin/bash
# Flush floor A/B: four models (ResNet-50's flush is already over the L3), 1 thread, every
# library; LUTs profiled as shipped and by a one-off build whose flush is at least the shared
# cache (LW_FLUSH_FLOOR, /tmp/sq/layerwise_floor); then 3 rounds, each model benched on both
# LUTs back to back by the shipped binary.
cd /tmp/ff  # (copied here from /tmp/ff)
B=/work/main/build/explorer/layerwise; F=/tmp/sq/layerwise_floor
M="squeezenet1_1 mobilenetv2 mobilenetv3_large googlenet"
mkdir -p ship floor
uptime > load
for m in $M; do
  /usr/bin/time -f "$m ship %e s" $B profile --model $m --threads 1 --out ship/$m.lut.json --quiet > ship/$m.profile.out 2>> times.txt
  LW_FLUSH_FLOOR=1 /usr/bin/time -f "$m floor %e s" $F profile --model $m --threads 1 --out floor/$m.lut.json --quiet > floor/$m.profile.out 2>> times.txt
done
echo profiled > profiled
for r in 1 2 3; do for m in $M; do for v in ship floor; do
  $B bench --lut-dir $v --models $m --threads 1 --repeats 10 --labels ref-fp32,onednn,opt-fp32,opt-int8,opt-mixed --out $v/$m.bench.$r.csv --quiet > /dev/null 2> $v/$m.bench.$r.err
done; done; done
uptime >> load
echo done > finished
