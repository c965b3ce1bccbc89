#!/bin/bash
# A/B of the warm call path: LUTs of model M (native, openblas, torch) profiled with and without
# --cold-call-path, then benched alternately (warm, cold, warm, cold) on ref-fp32, torch-nchw and
# torch-nhwc with --steps. usage: ab.sh [M] [T]; T = 1 (default: thread set 1, folders warm/ and
# cold/) or 2 (thread sets 1 and 2 profiled, thread cap 2 benched, folders warm2/ and cold2/:
# ../mobilenetv2-torch-t2/).
set -e
L=/work/main/build/explorer/layerwise
M=${1:-mobilenetv2}
T=${2:-1}
sets=1; suffix=""
[ "$T" = 2 ] && sets=1,2 && suffix=2
for v in warm cold; do
  mkdir -p $v$suffix
  flag=""; [ $v = cold ] && flag="--cold-call-path"
  $L profile --model $M --libs native,openblas,torch --threads $sets --quiet $flag --out $v$suffix/$M.lut.json > $v$suffix/$M.profile.out 2>&1
done
for v in warm cold warm cold; do
  flag=""; [ $v = cold ] && flag="--cold-call-path"
  $L bench --lut-dir $v$suffix --models $M --threads $T --repeats 5 --labels ref-fp32,torch-nchw,torch-nhwc $flag \
     --steps $v$suffix/$M.steps.csv --quiet --md $v$suffix/$M.bench.md > $v$suffix/$M.bench.out 2>&1
  echo "== $v$suffix"; grep -E '^\| (ref-fp32|torch)' $v$suffix/$M.bench.md
done
