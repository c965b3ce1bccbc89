# bench_conv of the native Winograd convs on 26 shapes, the binary before (BEFORE) and after
# (AFTER) the flatten change, one after the other: before.csv / after.csv (medians of 3).
# Usage: BEFORE=path/bench_conv AFTER=path/bench_conv bash run.sh; python3 agg.py before.csv after.csv
set -u
F='(googlenet/(stem.conv3|inception3a.branch2|inception3b.branch3|inception4b.branch2|inception4e.branch3|inception5b.branch2)|resnet50/layer[1-4]..\.conv2|squeezenet1_1/fire[2468].expand3x3)/conv2d_nhwc_f32_native_winograd_f[246](_fused)?_t[12]$'
for v in before after; do
  b=$BEFORE; [ $v = after ] && b=$AFTER
  $b --benchmark_filter="$F" --benchmark_min_time=0.1 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
     --benchmark_format=csv 2>/dev/null | grep median > $v.csv
done
