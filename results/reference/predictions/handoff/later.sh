#!/bin/bash
# Waits for a calmer machine (1-min load < 1.2), then: executor before/after (main's binary vs this
# branch's, same LUT without hand-offs, interleaved twice), then a third run of the five models.
NEW=/tmp/ho/lw_bin
MAIN=/work/main/build/explorer/layerwise
cd /tmp/ho/run
for i in $(seq 1 200); do awk '{exit !($1 < 1.2)}' /proc/loadavg && break; sleep 10; done
for r in 1 2; do for b in main new; do
  B=$NEW; [ $b = main ] && B=$MAIN
  uptime > exec2.$b.r$r.load
  nice -n 5 $B bench --lut-dir /tmp/quiet/luts --models mobilenetv3_large --threads 2 --repeats 15 --labels opt-fp32,opt-int8 \
    --out exec2.$b.r$r.csv --steps exec2.$b.r$r.steps.csv --quiet > /dev/null 2> exec2.$b.r$r.err
done; done
for M in squeezenet1_1 mobilenetv2 mobilenetv3_large googlenet resnet50; do
  uptime > $M.r3.load
  nice -n 5 $NEW bench --lut-dir /tmp/ho/luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8 \
    --out $M.r3.csv --md $M.r3.md --steps $M.r3.steps.csv --quiet > /dev/null 2> $M.r3.err
done
echo done > later.finished
