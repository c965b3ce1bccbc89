#!/bin/bash
# A/B of the per-inference pin (b3dd8ff) and of the replay's CPU clock (1442dde) on the
# quickstart's network. Needs three binaries built from d0bc6e3 (old), b3dd8ff (new) and
# 1442dde (clk), copied to /tmp/q/lw_old, /tmp/q/lw_new, /tmp/q/lw_clk, and the quickstart's
# LUT and run directory (bash scripts/quickstart). Each pair runs back to back.
set -u
cd /work/main
L=results/luts/fmnist_resnet__2b0e28ea3b36837a__73522ee2.lut.json
D=$(ls -td results/fmnist_resnet__qlearning* | head -1)
M=configs/models/fmnist_resnet.json
grab() { grep -o "measured median [0-9.]* ms\|sum of per-step medians [0-9.]*" | tr '\n' ' '; echo; }
# 1. The pin: opt-fp32 capped at 1 and 2 threads, four pairs each.
for t in 1 2; do for r in 1 2 3 4; do for b in old new; do
  echo -n "pin t$t $b$r: "
  /tmp/q/lw_$b replay --model $M --lut $L --baseline opt-fp32 --threads $t --test-images 100 --min-seconds 1 --out /tmp/q/ab_$b --quiet 2>&1 | grab
done; done; done
# 2. The CPU clock: the quickstart's chosen deployment, three pairs.
for r in 1 2 3; do for b in new clk; do
  echo -n "clock $b$r: "
  /tmp/q/lw_$b replay --model $M --lut $L --filter $D/filter.json --pick chosen --test-images 100 --min-seconds 1 --out /tmp/q/ab_$b --quiet 2>&1 | grab
done; done
