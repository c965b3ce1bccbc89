#!/bin/bash
# A/B: native kernels generic (avx2 masked) vs avx2, alternating processes; onednn as the drift reference.
F='resnet50/layer(1.0.conv2|3.1.conv2|1.1.conv1|4.1.conv2|2.1.conv1)/conv2d_n(chw|hwc)(8c)?_f32_(native_(winograd_f4|winograd_f2|im2row|gemm_1x1)|onednn_default)_t1$'
for r in 1 2 3; do
  for v in generic avx2; do
    m=""; [ $v = generic ] && m=avx2
    LAYERWISE_MASK_CPU_FEATURES=$m /work/main/build/tests/bench_conv --benchmark_filter="$F" --benchmark_min_time=0.2 \
      --benchmark_format=csv 2>/dev/null | sed "s/^/$v,$r,/" >> ab.csv  # gzip it for agg.py
  done
done
