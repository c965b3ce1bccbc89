#!/bin/bash
set -u
cd /tmp/q/r50
{ lscpu; git -C /work/main rev-parse HEAD; } > machine.txt
mkdir -p luts
uptime > profile.load
/usr/bin/time -f "%e s wall" ./layerwise profile --model resnet50 --out luts/resnet50.lut.json --libs native,openblas,xnnpack,torch,onednn --threads 1 --quiet 2> profile.err
uptime >> profile.load
/usr/bin/time -f "%e s" ./layerwise bench --lut-dir luts --models resnet50 --threads 1 --repeats 10 --labels ref-fp32,onednn,opt-fp32 --steps steps.csv --out bench.csv --md bench.md --quiet > bench.out 2> bench.err
uptime >> profile.load
echo done > finished
