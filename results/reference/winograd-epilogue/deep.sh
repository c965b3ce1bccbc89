#!/bin/bash
# ResNet-50's deep 3x3 convs (layer3.1, layer4.1), the bench_conv binaries before and after
# alternated six times, short runs, to tell the epilogue change from the host's noise.
F='resnet50/layer(3.1|4.1).conv2/conv2d_nhwc_f32_native_winograd_f[24]_fused_t1$'
for r in 1 2 3 4 5 6; do
  for b in old new; do
    /tmp/bench_$b --benchmark_filter="$F" --benchmark_min_time=0.1 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null | grep median | sed "s/^/$b,$r,/" >> deep.csv
  done
done
