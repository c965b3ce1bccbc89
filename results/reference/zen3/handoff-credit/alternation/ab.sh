#!/bin/bash
# A/B of the hand-off matrix's measurement: the same fresh LUTs (P/luts), one copy with the
# matrix of the old binary (a pair after settling, medians), one with the new binary's
# (after an alternation, trimmed means); both measured one after the other, then
# `bench --threads 2` on each copy in alternation, two rounds.
# usage: ab.sh P OLD_BINARY NEW_BINARY MODELS...
set -u
P=$1; OLD=$2; NEW=$3; shift 3
mkdir -p $P/old/luts $P/new/luts
for M in "$@"; do
  cp $P/luts/$M.lut.json $P/old/luts/; cp $P/luts/$M.lut.json $P/new/luts/
  $OLD profile --model $M --runtime-only --out $P/old/luts/$M.lut.json > $P/old/$M.runtime.txt
  $NEW profile --model $M --runtime-only --out $P/new/luts/$M.lut.json > $P/new/$M.runtime.txt
done
for r in 1 2; do for M in "$@"; do for V in old new; do
  echo "$M $V r$r $(date +%T) $(cat /proc/loadavg)" >> $P/ab.load
  $NEW bench --lut-dir $P/$V/luts --models $M --threads 2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed \
    --near-wait 60 --out $P/$V/$M.r$r.csv --md $P/$V/$M.r$r.md --steps $P/$V/$M.r$r.steps.csv --quiet > /dev/null 2> $P/$V/$M.r$r.err
done; done; done
echo done > $P/ab.finished
