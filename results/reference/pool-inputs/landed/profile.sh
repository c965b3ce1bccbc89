#!/bin/bash
# The a/ LUTs: profiled with 5a7a25d's binary (inputs written back in halves), 23:12:58-23:18:37 UTC,
# then both shared-line rates added with 206c801's: `layerwise2 profile --model M --runtime-only
# --lut luts/M.lut.json --out a/M.lut.json` (rates 0.117 / 0.018 and 0.121 / 0.019 us per KiB).
# b/ is ../../shared-write/fresh/a/. Ran in /tmp/q/pi; then `bash rounds.sh 1 2 3 4 5 6`.
cd /tmp/q/pi
for M in squeezenet1_1 googlenet; do
  echo "$M start $(date +%T) link $(/tmp/q/link 1)" >> log
  /usr/bin/time -f "%e s" ./layerwise profile --model $M --libs native,openblas,xnnpack,onednn --threads 1,2 --out luts/$M.lut.json --quiet > p.$M.out 2> p.$M.err
  echo "$M end $(date +%T) link $(/tmp/q/link 1)" >> log
done; echo done > finished
