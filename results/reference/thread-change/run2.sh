#!/bin/bash
# GoogLeNet again: i2/ is i/'s LUT with its runtime costs measured again far (`lw_inplace profile
# --runtime-only`: the profile had measured them near, rates 14x smaller), against c/.
cd /tmp/q/tc2  # (ran there, 2026-11-28 23:47-00:05 UTC; the results are in runs/ and googlenet-far-rates/)
for R in 1 2 3 4 5 6; do M=googlenet; for V in c i2; do [ $((R % 2)) = 0 ] && V=$([ $V = c ] && echo i2 || echo c)
  B=$([ $V = c ] && echo ./lw_copy || echo ./lw_inplace)
  echo "$M $V r$R $(date +%T) link $(/tmp/q/link 1)" >> log2
  $B bench --lut-dir $V --models $M --threads 2 --repeats 11 --labels opt-fp32,opt-int8 --near-wait 0 \
    --steps g2.$V.r$R.steps.csv --out g2.$V.r$R.csv --md g2.$V.r$R.md --quiet > /dev/null 2> g2.$V.r$R.err
done; done
echo "end $(date +%T)" >> log2; echo done > finished2
