#!/bin/bash
# Every library, 1 thread: LUTs profiled with and without --cold-call-path, then benched
# (ref-fp32, onednn, torch-nhwc, torch-nchw, opt-fp32) twice each, alternating.
set -e
L=/work/main/build/explorer/layerwise
M=$1
for v in warm cold; do
  mkdir -p all-$v
  flag=""; [ $v = cold ] && flag="--cold-call-path"
  /usr/bin/time -f "%e s" -o all-$v/$(basename $M .onnx).profile.time $L profile --model $M --threads 1 --quiet $flag --out all-$v/$(basename $M .onnx).lut.json > all-$v/$(basename $M .onnx).profile.out 2>&1
done
for r in 1 2; do for v in warm cold; do
  flag=""; [ $v = cold ] && flag="--cold-call-path"
  $L bench --lut-dir all-$v --models $M --threads 1 --repeats 5 --labels ref-fp32,onednn,torch-nchw,torch-nhwc,opt-fp32 $flag \
     --steps all-$v/$(basename $M .onnx).steps$r.csv --quiet --md all-$v/$(basename $M .onnx).bench$r.md > all-$v/$(basename $M .onnx).bench$r.out 2>&1
  echo "== $M $v round $r"; grep -E '^\| (ref-fp32|onednn|torch-nchw|torch-nhwc|opt-fp32) ' all-$v/$(basename $M .onnx).bench$r.md
done; done
