#!/bin/bash
# End-to-end A/B of the Winograd epilogue (83c4a29) in /tmp/ab, with the layerwise binaries
# before (layerwise_old) and after (layerwise_new): LUTs of SqueezeNet 1.1 and GoogLeNet at
# 1 thread profiled with each, then their benches (ref-fp32, native, opt-fp32) alternated.
# As run: `bash e2e.sh` (rounds 1 2, 10 rounds each), then on the same LUTs
# `PROFILE=0 ROUNDS="3 4 5 6 7 8" REPEATS=20 bash e2e.sh`.
set -u
cd /tmp/ab
if [ "${PROFILE:-1}" = 1 ]; then
  for b in old new; do
    mkdir -p luts_$b
    for M in squeezenet1_1 googlenet; do
      /usr/bin/time -f "$b $M %e s" ./layerwise_$b profile --model $M --out luts_$b/$M.lut.json --libs native,openblas,xnnpack,onednn --threads 1 --quiet 2>> profile.err
    done
  done
fi
for r in ${ROUNDS:-1 2}; do
  for b in old new; do
    uptime >> bench.load
    ./layerwise_$b bench --lut-dir luts_$b --models squeezenet1_1,googlenet --threads 1 --repeats ${REPEATS:-10} --labels ref-fp32,native,opt-fp32 --out bench_$b.r$r.csv --md bench_$b.r$r.md --quiet > /dev/null 2>> bench.err
  done
done
