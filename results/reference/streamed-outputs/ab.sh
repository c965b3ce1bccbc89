#!/bin/bash
# A/B of the streamed-output model at 1 thread: per model, a LUT profiled with it (on/) and one
# with --no-streamed-outputs (off/), by one copy of the built binary; then three bench rounds
# per model, the two LUTs in turn (bench --steps: per-step residuals, the charge apart).
#   bash ab.sh OUT   (default /tmp/q/ab)
set -u
O=${1:-/tmp/q/ab}; L=$O/layerwise; mkdir -p $O/on $O/off; cp /work/main/build/explorer/layerwise $L
MODELS=${MODELS:-"squeezenet1_1 googlenet resnet50 mobilenetv2 mobilenetv3_large"}
for M in $MODELS; do
  LIBS=native,openblas,xnnpack,onednn; [ $M = resnet50 ] && LIBS=native,openblas,xnnpack,torch,onednn
  /usr/bin/time -f "%e s" $L profile --model $M --out $O/on/$M.lut.json --libs $LIBS --threads 1 --quiet 2> $O/on/$M.profile.err
  /usr/bin/time -f "%e s" $L profile --model $M --out $O/off/$M.lut.json --libs $LIBS --threads 1 --quiet --no-streamed-outputs 2> $O/off/$M.profile.err
done
for R in 1 2 3; do
  for M in $MODELS; do
    for V in off on; do
      $L bench --lut-dir $O/$V --models $M --threads 1 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed \
        --steps $O/$V/$M.r$R.steps.csv --out $O/$V/$M.r$R.csv --md $O/$V/$M.r$R.md --quiet > /dev/null 2>&1
    done
  done
done
echo done > $O/finished
