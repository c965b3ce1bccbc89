#!/bin/bash
# A/B of the warm call path: MobileNetV2 LUTs (native, openblas, torch; thread sets 1 and 2; benched at 2 threads) profiled with and
# without --cold-call-path, each benched on ref-fp32, torch-nchw, torch-nhwc with --steps.
set -e
L=/work/main/build/explorer/layerwise
M=${1:-mobilenetv2}
for v in warm2 cold2; do
  mkdir -p $v
  flag=""; [ $v = cold2 ] && flag="--cold-call-path"
  $L profile --model $M --libs native,openblas,torch --threads 1,2 --quiet $flag --out $v/$M.lut.json > $v/$M.profile.out 2>&1
done
for v in warm2 cold2 warm2 cold2; do
  flag=""; [ $v = cold2 ] && flag="--cold-call-path"
  $L bench --lut-dir $v --models $M --threads 2 --repeats 5 --labels ref-fp32,torch-nchw,torch-nhwc $flag \
     --steps $v/$M.steps.csv --quiet --md $v/$M.bench.md > $v/$M.bench.out 2>&1
  echo "== $v"; grep -E '^\| (ref-fp32|torch)' $v/$M.bench.md
done
