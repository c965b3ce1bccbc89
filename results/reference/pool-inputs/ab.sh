#!/bin/bash
# The A/B of this folder: the experiment build (experiment.patch on b705a94, copied to ./lwx) with
# LW_X=0 (inputs read back by the caller, the protocol then) and LW_X=1 (written back in halves by
# the two cores), alternating, bench's recheck timing the deployments' implementations with each;
# the LUTs: ../shared-write/fresh/'s a/ (profiled 21:01-21:04 UTC with b705a94's parent binary).
# Ran in /tmp/q/rc, 22:59-23:09 UTC on 2026-11-28; `python3 an.py runs` reads the results.
for R in 3 4 5 6 7 8; do for M in googlenet squeezenet1_1; do for X in 0 1; do [ $((R % 2)) = 0 ] && X=$((1 - X))
  echo "$M X$X r$R $(date +%T) link $(/tmp/q/link 1)" >> log
  LW_X=$X ./lwx bench --lut-dir /tmp/q/sw/fresh/a --models $M --threads 2 --repeats 11 --labels opt-fp32,opt-int8 \
    --near-wait 0 --recheck --steps $M.x$X.r$R.steps.csv --out $M.x$X.r$R.csv --md $M.x$X.r$R.md --quiet > /dev/null 2>&1
done; done; done; echo end >> log
