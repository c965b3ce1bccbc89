#!/bin/bash
# 1-thread deployments of GoogLeNet with cpu1 idle (h0) or spinning on pause (h1)
M=googlenet
for r in 1 2; do for H in 0 1; do
  if [ $H = 1 ]; then taskset -c 1 ./hog & HP=$!; fi
  /tmp/q/lw_fin bench --lut-dir /tmp/q/p74/luts --models $M --threads 1 --repeats 8 --labels opt-fp32,opt-int8 \
    --steps $M.h$H.r$r.steps.csv --out $M.h$H.r$r.csv --md $M.h$H.r$r.md --quiet > /dev/null 2> $M.h$H.r$r.err
  [ $H = 1 ] && kill $HP
  echo "$(date +%T) h$H r$r"
done; done
