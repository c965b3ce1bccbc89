#!/bin/bash
# Does `lut refine` (contenders timed inside network inferences) take out the 1-thread int8 miss
# of this folder's rounds? Per model: a = the round's LUT (copied), b = a copy refined in the
# network (`lut refine --rounds 10`), then bench opt-fp32, opt-int8, opt-mixed at THREADS on
# a, b, a, b, a, b (15 rounds each, alternating so that the host's drift falls on both alike).
# usage: run.sh OUT [models] [LUT dir] [threads, default 1]   (from the repository root after scripts/build)
set -euo pipefail
L=build/explorer/layerwise
OUT=$1
MODELS=${2:-mobilenetv2,mobilenetv3_large,squeezenet1_1}
SRC=${3:-/tmp/q/p80/luts}
THREADS=${4:-1}
mkdir -p "$OUT/a" "$OUT/b"
for M in ${MODELS//,/ }; do
  echo "$(date -u +%T) $M" >&2
  cp "$SRC/$M.lut.json" "$OUT/a/$M.lut.json"
  cp "$SRC/$M.lut.json" "$OUT/b/$M.lut.json"
  /usr/bin/time -f "%e s" $L lut refine "$OUT/b/$M.lut.json" --rounds 10 > "$OUT/b/$M.refine.out" 2>&1
  for k in 1 2 3; do
    for v in a b; do
      $L bench --lut-dir "$OUT/$v" --models "$M" --threads $THREADS --labels opt-fp32,opt-int8,opt-mixed --repeats 15 \
        --steps "$OUT/$v/$M.$k.steps.csv" --out "$OUT/$v/$M.$k.csv" --md "$OUT/$v/$M.$k.md" --quiet > /dev/null
    done
  done
done
echo "$(date -u +%T) done" >&2
