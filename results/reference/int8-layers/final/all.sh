#!/bin/bash
# Fresh LUTs of the five bench models, one interleaved bench, then three prediction rounds, all
# in folder D (default /tmp/q/p16, as run for this folder; ../../zen4/ ran it with /tmp/q/p27).
D=${1:-/tmp/q/p16}
cd $D
bash /work/main/results/reference/recheck/profile.sh $D > profile.out 2>&1
mkdir -p bench && cd bench
uptime > bench.load
/usr/bin/time -f "%e s" ../layerwise bench --lut-dir $D/luts --threads 1,2 --repeats 10 --labels ref-fp32,native,xnnpack,onednn,opt-fp32,opt-int8,opt-mixed --out bench.csv --md bench.md --quiet > bench.out 2> bench.err
uptime >> bench.load
cd ..
bash /work/main/results/reference/recheck/pred.sh $D/pred $D > pred.out 2>&1
echo done > all.finished
