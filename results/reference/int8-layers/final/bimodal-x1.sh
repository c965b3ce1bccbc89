#!/bin/bash
# Which binary times layer1.0.downsample's fused int8 conv + residual at 0.17 vs 0.34 ms?
cd /tmp/q/x1
for k in 1 2; do
  for b in p13 p16; do
    /tmp/q/$b/layerwise profile --model resnet50 --out $b.$k.lut.json --libs native,onednn --threads 1 --quiet 2> $b.$k.err
  done
done
echo done > finished
