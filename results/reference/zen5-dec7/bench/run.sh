#!/bin/bash
# Fresh LUTs of the five bench models (recheck/profile.sh) and one interleaved bench, as the
# first half of int8-layers/final/all.sh (its prediction rounds left out for the session's time).
set -u
D=${1:-/tmp/q/p102}; mkdir -p $D; cd $D  # (big-weights/table/ ran it with /tmp/q/p200)
{ lscpu; git -C /work/main rev-parse HEAD; } > machine.txt
bash /work/main/results/reference/recheck/profile.sh $D > profile.out 2>&1
mkdir -p bench && cd bench
uptime > bench.load
/usr/bin/time -f "%e s" ../layerwise bench --lut-dir $D/luts --threads 1,2 --repeats 10 --labels ref-fp32,native,xnnpack,onednn,opt-fp32,opt-int8,opt-mixed --out bench.csv --md bench.md --quiet > bench.out 2> bench.err
uptime >> bench.load
echo done > $D/finished
