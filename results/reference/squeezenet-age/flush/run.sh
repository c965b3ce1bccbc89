#!/bin/bash
# SqueezeNet, native library, 1 thread: the profile's flush as shipped (passing bytes less the
# layer's own, ~6 MB here) against a one-off build's fixed flush of 24 and 64 MiB
# (LW_FLUSH_MB, /tmp/sq/layerwise_flush); then interleaved benches of the native deployment.
cd /tmp/fl  # (copied here from /tmp/fl)
B=/work/main/build/explorer/layerwise; F=/tmp/sq/layerwise_flush
for v in ship f24 f64; do mkdir -p $v; done
$B profile --model squeezenet1_1 --libs native --threads 1 --out ship/squeezenet1_1.lut.json --quiet > ship/profile.out 2>&1
LW_FLUSH_MB=24 $F profile --model squeezenet1_1 --libs native --threads 1 --out f24/squeezenet1_1.lut.json --quiet > f24/profile.out 2>&1
LW_FLUSH_MB=64 $F profile --model squeezenet1_1 --libs native --threads 1 --out f64/squeezenet1_1.lut.json --quiet > f64/profile.out 2>&1
for r in 1 2 3 4 5; do for v in ship f24 f64; do
  $B bench --lut-dir $v --models squeezenet1_1 --threads 1 --repeats 10 --labels ref-fp32,native --steps $v/steps.$r.csv --out $v/bench.$r.csv --quiet > /dev/null 2> $v/bench.$r.err
done; done
echo done > finished
