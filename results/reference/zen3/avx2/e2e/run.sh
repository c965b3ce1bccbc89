#!/bin/bash
# End-to-end A/B of the native kernels' builds: the same binary profiles three models twice,
# once as is (AVX2 build) and once with AVX2 masked (the baseline SSE2 build the native
# kernels ran before), then benches both LUT sets in alternation, two runs each.
set -u
O=/tmp/q/abk; cd $O; cp /work/main/build/explorer/layerwise ./layerwise
MODELS="resnet50 squeezenet1_1 googlenet"
for v in avx2 generic; do
  mkdir -p $v/luts
  m=""; [ $v = generic ] && m=avx2
  for M in $MODELS; do
    LIBS=native,openblas,xnnpack,onednn; [ $M = resnet50 ] && LIBS=native,openblas,xnnpack,torch,onednn
    [ $v = avx2 ] && [ -f /tmp/q/p53/luts/$M.lut.json ] && { cp /tmp/q/p53/luts/$M.lut.json $v/luts/; continue; }
    LAYERWISE_MASK_CPU_FEATURES=$m /usr/bin/time -f "%e s wall" ./layerwise profile --model $M --out $v/luts/$M.lut.json \
      --libs $LIBS --threads 1,2 --quiet 2> $v/p.$M.err
  done
done
for r in 1 2; do
  for v in avx2 generic; do
    m=""; [ $v = generic ] && m=avx2
    LAYERWISE_MASK_CPU_FEATURES=$m ./layerwise bench --lut-dir $v/luts --models $(echo $MODELS | tr ' ' ,) --threads 1,2 \
      --repeats 7 --labels ref-fp32,native,onednn,opt-fp32 --out $v.r$r.csv --md $v.r$r.md --quiet > /dev/null 2> $v.r$r.err
  done
done
echo done > finished
