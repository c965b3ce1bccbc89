#!/bin/bash
# A fresh profile of GoogLeNet and SqueezeNet 1.1 with the binary that measures the shared-write rate,
# then alternating bench rounds with it (a) and a copy without the rate (b), 2 threads.
H=$(cd "$(dirname "$0")" && pwd)
cd /tmp/q/sw/fresh; L=./layerwise
for M in squeezenet1_1 googlenet; do
  echo "profile $M $(date +%T) link $(/tmp/q/link 1)" >> log
  /usr/bin/time -f "%e s wall" $L profile --model $M --out luts/$M.lut.json --libs native,openblas,xnnpack,onednn --threads 1,2 --quiet 2> p.$M.err
done
mkdir -p a b; cp luts/*.lut.json a/
for M in squeezenet1_1 googlenet; do python3 -c "
import json;L=json.load(open('a/$M.lut.json'));L['runtime'].pop('shared_write_us_per_kb',None);json.dump(L,open('b/$M.lut.json','w'))"; done
bash "$H/rounds.sh" 1 2 3 4
