#!/bin/bash
cd /tmp/q/p27
bash /work/main/results/reference/recheck/profile.sh /tmp/q/p27 > profile.out 2>&1
mkdir -p bench && cd bench
uptime > bench.load
/usr/bin/time -f "%e s" ../layerwise bench --lut-dir /tmp/q/p27/luts --threads 1,2 --repeats 10 --labels ref-fp32,native,xnnpack,onednn,opt-fp32,opt-int8,opt-mixed --out bench.csv --md bench.md --quiet > bench.out 2> bench.err
uptime >> bench.load
cd ..
bash /work/main/results/reference/recheck/pred.sh /tmp/q/p27/pred /tmp/q/p27 > pred.out 2>&1
echo done > all.finished
