#!/bin/bash
# Issue 12's ratio with and without `lut refine`: per model, a 1-thread profile with the four
# libraries Ref-FP32 and the search use (a), a copy refined in the network (b), then bench
# --labels ref-fp32,opt-fp32 at 1 thread on a, b, a, b, ... N times each (Ref-FP32 in every
# bench, so each ratio comes from one interleaved run).
# usage: ratio.sh OUT N [models]   (from the repository root after scripts/build)
set -euo pipefail
L=build/explorer/layerwise
OUT=$1
N=$2
MODELS=${3:-resnet50,googlenet,squeezenet1_1}
mkdir -p "$OUT/a" "$OUT/b"
for M in ${MODELS//,/ }; do
  echo "$(date -u +%T) $M" >&2
  $L profile --model "$M" --libs native,openblas,xnnpack,onednn --threads 1 --out "$OUT/a/$M.lut.json" --quiet \
    > "$OUT/a/$M.profile.out"
  cp "$OUT/a/$M.lut.json" "$OUT/b/$M.lut.json"
  $L lut refine "$OUT/b/$M.lut.json" --rounds 10 > "$OUT/b/$M.refine.out" 2>&1
  for k in $(seq 1 "$N"); do
    for v in a b; do
      $L bench --lut-dir "$OUT/$v" --models "$M" --threads 1 --labels ref-fp32,opt-fp32 --repeats 15 \
        --steps "$OUT/$v/$M.$k.steps.csv" --out "$OUT/$v/$M.$k.csv" --md "$OUT/$v/$M.$k.md" --quiet > /dev/null 2>> "$OUT/bench.err"
    done
  done
done
echo "$(date -u +%T) done" >&2
