#!/bin/bash
# More alternating benches on the LUTs run.sh left in OUT: bench K0..K1 on a, b, a, b, ...
# usage: more.sh OUT K0 K1 [models]
set -euo pipefail
L=build/explorer/layerwise
OUT=$1
MODELS=${4:-mobilenetv3_large,mobilenetv2}
for M in ${MODELS//,/ }; do
  for k in $(seq "$2" "$3"); do
    for v in a b; do
      $L bench --lut-dir "$OUT/$v" --models "$M" --threads 1 --labels opt-fp32 --repeats 15 --steps "$OUT/$v/$M.$k.steps.csv" \
        --out "$OUT/$v/$M.$k.csv" --md "$OUT/$v/$M.$k.md" --quiet > /dev/null 2>> "$OUT/more.err"
    done
  done
done
