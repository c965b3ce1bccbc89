#!/bin/bash
F='resnet50/layer(1.0|2.1|3.1|4.1).conv2/conv2d_n(chw|hwc)_f32_native_winograd_f(2|4)_t1$'
for r in 1 2 3; do
  for v in old new; do
    b=/work/main/build/tests/bench_conv; [ $v = old ] && b=/tmp/q/bench_conv.old  # the build before this change
    $b --benchmark_filter="$F" --benchmark_min_time=0.15 --benchmark_format=csv 2>/dev/null | grep -v '^name' | sed "s/^/$v,$r,/" >> w.csv  # gzip it for agg.py
  done
done
