#!/bin/bash
# Does bench's recheck read oneDNN f32 1-thread steps higher than the network runs them, and
# higher than a profile taken right after? Per model: a native + oneDNN 1-thread profile (flatten has no oneDNN implementation) (a), bench
# --recheck --steps on it (onednn and opt-fp32, interleaved, 15 rounds), a second profile (b)
# right after, all within ~2 minutes. compare.py then puts, per step, a's figure, the network's
# mean, the recheck's and b's side by side.
# usage: run.sh OUT [models]   (run from the repository root after scripts/build)
set -euo pipefail
L=build/explorer/layerwise
OUT=$1
MODELS=${2:-mobilenetv2,mobilenetv3_large,googlenet,resnet50}
mkdir -p "$OUT/a" "$OUT/b"
for M in ${MODELS//,/ }; do
  echo "$(date -u +%T) $M" >&2
  $L profile --model "$M" --libs native,onednn --threads 1 --out "$OUT/a/$M.lut.json" --quiet > "$OUT/a/$M.profile.out"
  $L bench --lut-dir "$OUT/a" --models "$M" --threads 1 --labels onednn,opt-fp32 --repeats 15 --recheck \
    --steps "$OUT/a/$M.steps.csv" --out "$OUT/a/$M.csv" --md "$OUT/a/$M.md" --quiet > /dev/null
  $L profile --model "$M" --libs native,onednn --threads 1 --out "$OUT/b/$M.lut.json" --quiet > "$OUT/b/$M.profile.out"
done
echo "$(date -u +%T) done" >&2
