#!/bin/bash
# End-to-end A/B of the Winograd epilogue (83c4a29): LUTs of SqueezeNet 1.1 and GoogLeNet at
# 1 thread profiled with the binary before (old) and after (new), then their benches
# alternated twice (ref-fp32, native, opt-fp32; 10 rounds).
set -u
cd /tmp/ab
for b in old new; do
  mkdir -p luts_$b
  for M in squeezenet1_1 googlenet; do
    /usr/bin/time -f "$b $M %e s" ./layerwise_$b profile --model $M --out luts_$b/$M.lut.json --libs native,openblas,xnnpack,onednn --threads 1 --quiet 2>> profile.err
  done
done
for r in 1 2; do
  for b in old new; do
    uptime >> bench.load
    ./layerwise_$b bench --lut-dir luts_$b --models squeezenet1_1,googlenet --threads 1 --repeats 10 --labels ref-fp32,native,opt-fp32 --out bench_$b.r$r.csv --md bench_$b.r$r.md --quiet > /dev/null 2>> bench.err
  done
done
echo done > e2e.finished
