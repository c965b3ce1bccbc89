#!/bin/bash
# ResNet-50 after the profiler reads an accumulated-into output back like an input: fresh LUT,
# then two rounds of the prediction bench (opt-fp32, opt-int8, opt-mixed; 1 and 2 threads).
cd /tmp/q/p17
/usr/bin/time -f "%e s wall %U+%S s cpu" ./layerwise profile --model resnet50 --out luts/resnet50.lut.json --libs native,openblas,xnnpack,torch,onednn --threads 1,2 --quiet 2> p.resnet50.profile.err
for r in 1 2; do
  ./layerwise bench --lut-dir luts --models resnet50 --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed --recheck --out resnet50.r$r.csv --md resnet50.r$r.md --steps resnet50.r$r.steps.csv --quiet 2> resnet50.r$r.err
done
echo done > finished
