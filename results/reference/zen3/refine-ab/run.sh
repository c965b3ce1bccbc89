#!/bin/bash
# Does `lut refine` (the contenders timed inside network inferences) take out the 1-thread
# small-layer bias of ../recheck-vs-network/ (the network running the MobileNets' oneDNN f32
# layers ~6 % faster than the profile times them alone)? Per model, in one window: a native +
# oneDNN 1-thread profile (a), a copy refined in the network (b: `lut refine --rounds 10`), then
# bench opt-fp32 at 1 thread on a, b, a, b (15 rounds each; alternating, so that the host's drift
# falls on both alike).
# usage: run.sh OUT [models]   (from the repository root after scripts/build)
set -euo pipefail
L=build/explorer/layerwise
OUT=$1
MODELS=${2:-mobilenetv3_large,mobilenetv2}
mkdir -p "$OUT/a" "$OUT/b"
for M in ${MODELS//,/ }; do
  echo "$(date -u +%T) $M" >&2
  $L profile --model "$M" --libs native,onednn --threads 1 --out "$OUT/a/$M.lut.json" --quiet > "$OUT/a/$M.profile.out"
  cp "$OUT/a/$M.lut.json" "$OUT/b/$M.lut.json"
  $L lut refine "$OUT/b/$M.lut.json" --rounds 10 > "$OUT/b/$M.refine.out" 2>&1
  for k in 1 2; do
    for v in a b; do
      $L bench --lut-dir "$OUT/$v" --models "$M" --threads 1 --labels opt-fp32 --repeats 15 --steps "$OUT/$v/$M.$k.steps.csv" \
        --out "$OUT/$v/$M.$k.csv" --md "$OUT/$v/$M.$k.md" --quiet > /dev/null
    done
  done
done
echo "$(date -u +%T) done" >&2
