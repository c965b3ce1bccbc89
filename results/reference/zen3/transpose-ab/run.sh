#!/bin/bash
# The register-tile transposes (0caf9b5) against the loop before them, end to end: per model a
# 1-thread profile by each binary (the search then plans with that binary's conversion costs),
# then bench --labels ref-fp32,opt-fp32,opt-int8 at 1 thread with old, new, old, new, ... N
# times each (Ref-FP32 in every bench, so each ratio comes from one interleaved run).
# usage: run.sh OLD_BINARY NEW_BINARY OUT N [models]
set -euo pipefail
OLD=$1
NEW=$2
OUT=$3
N=$4
MODELS=${5:-squeezenet1_1,mobilenetv2,googlenet}
mkdir -p "$OUT/old" "$OUT/new"
for M in ${MODELS//,/ }; do
  for v in old new; do
    B=$OLD; [ "$v" = new ] && B=$NEW
    echo "$(date -u +%T) $M profile $v" >&2
    $B profile --model "$M" --libs native,openblas,xnnpack,onednn --threads 1 --out "$OUT/$v/$M.lut.json" --quiet \
      > "$OUT/$v/$M.profile.out"
  done
  for k in $(seq 1 "$N"); do
    for v in old new; do
      B=$OLD; [ "$v" = new ] && B=$NEW
      echo "$(date -u +%T) $M bench $v $k" >&2
      $B bench --lut-dir "$OUT/$v" --models "$M" --threads 1 --labels ref-fp32,opt-fp32,opt-int8 --repeats 15 \
        --steps "$OUT/$v/$M.$k.steps.csv" --out "$OUT/$v/$M.$k.csv" --md "$OUT/$v/$M.$k.md" --quiet > /dev/null 2>> "$OUT/bench.err"
    done
  done
done
echo "$(date -u +%T) done" >&2
