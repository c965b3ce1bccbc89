#!/bin/bash
# Issue 16 item 3, hand-offs. NEW: this branch's binary; MAIN: the lead's main at f63fc43.
NEW=/tmp/ho/lw_bin
MAIN=/work/main/build/explorer/layerwise
cd /tmp/ho/run
# 0) the hand-offs into copies of the quiet LUTs (seconds per model)
for M in squeezenet1_1 mobilenetv2 mobilenetv3_large googlenet resnet50; do
  nice -n 5 $NEW profile --model $M --runtime-only --lut /tmp/ho/luts/$M.lut.json --out /tmp/ho/luts/$M.lut.json > $M.runtime.txt 2>&1
done
bench5() {  # $1: run number
  for M in squeezenet1_1 mobilenetv2 mobilenetv3_large googlenet resnet50; do
    uptime > $M.r$1.load
    nice -n 5 $NEW bench --lut-dir /tmp/ho/luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8 \
      --out $M.r$1.csv --md $M.r$1.md --steps $M.r$1.steps.csv --quiet > /dev/null 2> $M.r$1.err
  done
}
bench5 1
# 1) executor before/after on the same LUT without hand-offs (same deployments): MobileNetV3-Large, 2 threads
for b in main new; do
  B=$NEW; [ $b = main ] && B=$MAIN
  uptime > exec.$b.load
  nice -n 5 $B bench --lut-dir /tmp/quiet/luts --models mobilenetv3_large --threads 2 --repeats 15 --labels opt-fp32,opt-int8 \
    --out exec.$b.csv --steps exec.$b.steps.csv --quiet > /dev/null 2> exec.$b.err
done
bench5 2
echo done > finished
