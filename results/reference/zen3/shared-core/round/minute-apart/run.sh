#!/bin/bash
# Does the recheck read above a profile taken a minute before it? SqueezeNet 1.1, 1 thread.
cd /tmp/q/rb
for i in 1 2 3 4; do
  echo "i$i $(date +%T)" >> log
  mkdir -p d$i
  ./L profile --model squeezenet1_1 --libs native,openblas,xnnpack,onednn --threads 1 --out d$i/squeezenet1_1.lut.json --quiet > p$i.out 2> p$i.err
  ./L bench --lut-dir d$i --models squeezenet1_1 --threads 1 --repeats 6 --labels opt-fp32,opt-int8 --recheck --out b$i.csv --md b$i.md --steps s$i.csv --quiet > /dev/null 2> b$i.err
done
echo end $(date +%T) >> log
