#!/bin/bash
# Fresh LUTs with the 32-byte-Vec AVX2 Winograd, then issue 12's f32 bench on them.
set -u
O=/tmp/q/p54; cd $O; cp /work/main/build/explorer/layerwise ./layerwise; mkdir -p luts
for M in resnet50 squeezenet1_1 googlenet; do
  LIBS=native,openblas,xnnpack,onednn; [ $M = resnet50 ] && LIBS=native,openblas,xnnpack,torch,onednn
  /usr/bin/time -f "%e s wall" ./layerwise profile --model $M --out luts/$M.lut.json --libs $LIBS --threads 1,2 --quiet 2> p.$M.err
done
./layerwise bench --lut-dir luts --models resnet50,squeezenet1_1,googlenet --threads 1,2 --repeats 7 \
  --labels ref-fp32,native,onednn,opt-fp32 --out f32.csv --md f32.md --quiet > /dev/null 2> f32.err
echo done > finished
