#!/bin/bash
# c/: LUTs whose thread changes were timed as copies (206c801's binary); i/: timed in place (this
# change); profiled back to back, then alternating bench rounds, 2 threads, with each binary.
cd /tmp/q/tc2  # (ran there, 2026-11-28 23:47-00:05 UTC; the results are in runs/ and googlenet-far-rates/)
for M in squeezenet1_1 googlenet; do for V in c i; do
  B=$([ $V = c ] && echo ./lw_copy || echo ./lw_inplace)
  echo "profile $M $V $(date +%T) link $(/tmp/q/link 1)" >> log
  /usr/bin/time -f "%e s" $B profile --model $M --libs native,openblas,xnnpack,onednn --threads 1,2 --out $V/$M.lut.json --quiet > p.$M.$V.out 2> p.$M.$V.err
done; done
for R in 1 2 3 4 5 6; do for M in squeezenet1_1 googlenet; do for V in c i; do [ $((R % 2)) = 0 ] && V=$([ $V = c ] && echo i || echo c)
  B=$([ $V = c ] && echo ./lw_copy || echo ./lw_inplace)
  echo "$M $V r$R $(date +%T) link $(/tmp/q/link 1)" >> log
  $B bench --lut-dir $V --models $M --threads 2 --repeats 11 --labels opt-fp32,opt-int8 --near-wait 0 \
    --steps $M.$V.r$R.steps.csv --out $M.$V.r$R.csv --md $M.$V.r$R.md --quiet > /dev/null 2> $M.$V.r$R.err
done; done; done
echo "end $(date +%T)" >> log; echo done > finished
