#!/bin/bash
cd /tmp/q/p13
for k in 1 2; do
  for v in after before; do
    D=luts; [ $v = before ] && D=before
    ./layerwise bench --lut-dir $D --models resnet50,mobilenetv2 --threads 1,2 --repeats 10 --labels ref-fp32,opt-fp32,opt-int8,opt-mixed --out ab.$v.$k.csv --md ab.$v.$k.md --steps ab.$v.$k.steps.csv --quiet 2> ab.$v.$k.err
  done
done
echo done > ab.finished
