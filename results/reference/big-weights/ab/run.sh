#!/bin/bash
set -u
cd /tmp/q/r50/ab
git -C /work/main diff > code.diff
mkdir -p new old
cp ../luts/resnet50.lut.json old/
uptime > load
/usr/bin/time -f "%e s wall" ./layerwise_new profile --model resnet50 --out new/resnet50.lut.json --libs native,openblas,xnnpack,torch,onednn --threads 1 > profile.out 2> profile.err
uptime >> load
for r in 1 2 3; do
  for v in new old; do
    ./layerwise_new bench --lut-dir $v --models resnet50 --threads 1 --repeats 10 --labels ref-fp32,onednn,opt-fp32 --steps $v.steps.$r.csv --out $v.bench.$r.csv --md $v.bench.$r.md --quiet > $v.bench.$r.out 2> $v.bench.$r.err
  done
done
uptime >> load
echo done > finished
