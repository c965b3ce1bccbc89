#!/bin/bash
# `lut refine --by-class` against the profiled LUT (../../zen5-l3/refine/run.sh with the class
# fit instead of per-implementation medians). Per model: a = the LUT as profiled (copied),
# b = a copy refined by class (`lut refine --by-class --rounds 10`), then bench opt-fp32,
# opt-int8, opt-mixed at THREADS on a, b, a, b, a, b (15 rounds each, alternating so that the
# host's drift falls on both alike). ../../zen5-l3/refine/compare.py OUT sums it up.
# LABELS: the deployments benched (default opt-fp32,opt-int8,opt-mixed).
# usage: run.sh OUT [models] [LUT dir] [threads, default 1,2]   (from the repository root after scripts/build)
set -euo pipefail
L=${LW:-build/explorer/layerwise}
OUT=$1
MODELS=${2:-resnet50,mobilenetv2,mobilenetv3_large,squeezenet1_1,googlenet}
SRC=${3:-/tmp/q/p101/luts}
THREADS=${4:-1,2}
LABELS=${LABELS:-opt-fp32,opt-int8,opt-mixed}
mkdir -p "$OUT/a" "$OUT/b"
for M in ${MODELS//,/ }; do
  echo "$(date -u +%T) $M" >&2
  cp "$SRC/$M.lut.json" "$OUT/a/$M.lut.json"
  cp "$SRC/$M.lut.json" "$OUT/b/$M.lut.json"
  /usr/bin/time -f "%e s" $L lut refine "$OUT/b/$M.lut.json" --by-class --rounds 10 --quiet > "$OUT/b/$M.refine.out" 2>&1
  for k in 1 2 3; do
    for v in a b; do
      $L bench --lut-dir "$OUT/$v" --models "$M" --threads $THREADS --labels $LABELS --repeats 15 \
        --steps "$OUT/$v/$M.$k.steps.csv" --out "$OUT/$v/$M.$k.csv" --md "$OUT/$v/$M.$k.md" --quiet > /dev/null
    done
  done
done
echo "$(date -u +%T) done" >&2
