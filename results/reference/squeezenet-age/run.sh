#!/bin/bash
# A/B: SqueezeNet 1-thread LUT with every weight-bearing implementation aged (one-off build,
# LW_AGE_ALL) vs the shipped rule, then interleaved benches.
cd /tmp/sq  # (copied here from /tmp/sq; layerwise_age: one-off.diff built at 60dd92d)
B=/work/main/build/explorer/layerwise; A=/tmp/sq/layerwise_age
mkdir -p base aged
uptime > load
/usr/bin/time -f "%e s" $B profile --model squeezenet1_1 --threads 1 --out base/squeezenet1_1.lut.json --quiet > base/profile.out 2> base/profile.err
LW_AGE_ALL=1 /usr/bin/time -f "%e s" $A profile --model squeezenet1_1 --threads 1 --out aged/squeezenet1_1.lut.json --quiet > aged/profile.out 2> aged/profile.err
for r in 1 2 3; do
  for v in base aged; do
    $B bench --lut-dir $v --models squeezenet1_1 --threads 1 --repeats 10 --labels ref-fp32,native,xnnpack,onednn,opt-fp32,opt-int8,opt-mixed --steps $v/steps.$r.csv --out $v/bench.$r.csv --md $v/bench.$r.md --quiet > $v/bench.$r.out 2> $v/bench.$r.err
  done
done
uptime >> load
echo done > finished
