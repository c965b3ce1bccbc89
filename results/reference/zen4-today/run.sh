#!/bin/bash
# Issue 16 item 3 on a Zen 4 VM with HEAD's code: fresh LUTs of the five bench models, then three
# prediction rounds (bench --recheck --steps, 1 and 2 threads, opt-fp32 / opt-int8 / opt-mixed).
# usage: [LABELS=...] run.sh OUT   (ran as run.sh /tmp/q/p1, 2026-11-29; ../zen3/today/run.sh runs it
# with ref-fp32 as well)
set -u
O=$1; L=$O/layerwise; mkdir -p $O/luts $O/pred; cd $O; cp /work/main/build/explorer/layerwise $L
MODELS="resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet"
for M in $MODELS; do
  echo "profile $M $(date +%T) link $(/tmp/q/link 1)" >> log
  /usr/bin/time -f "$M %e s" $L profile --model $M --libs native,openblas,xnnpack,onednn --threads 1,2 --out luts/$M.lut.json --quiet > p.$M.out 2> p.$M.err
done
for r in 1 2 3; do for M in $MODELS; do
  echo "bench $M r$r $(date +%T) link $(/tmp/q/link 1) load $(cut -d' ' -f1 /proc/loadavg)" >> log
  $L bench --lut-dir luts --models $M --threads 1,2 --repeats 15 --labels ${LABELS:-opt-fp32,opt-int8,opt-mixed} --near-wait 60 --recheck \
    --out pred/$M.r$r.csv --md pred/$M.r$r.md --steps pred/$M.r$r.steps.csv --quiet > /dev/null 2> pred/$M.r$r.err
done; done
echo "end $(date +%T) link $(/tmp/q/link 1)" >> log; echo done > finished
