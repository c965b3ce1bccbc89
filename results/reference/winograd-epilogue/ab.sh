#!/bin/bash
# A/B of the Winograd output epilogue: old (lane loop) vs new (Vec activation), alternating twice.
F='(resnet50/layer(1.0|2.1|3.1|4.1).conv2|squeezenet1_1/fire(2|4|6|8).expand3x3|googlenet/(stem.conv3|inception3a.branch2|inception4a.branch2|inception5a.branch2))/conv2d_nhwc_f32_native_winograd_f[246](_fused)?_t1$'
for r in 1 2; do
  for b in old new; do
    /tmp/bench_$b --benchmark_filter="$F" --benchmark_min_time=0.2 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null | grep median | sed "s/^/$b,$r,/" >> ab.csv
  done
done
