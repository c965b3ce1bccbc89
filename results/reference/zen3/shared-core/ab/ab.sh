#!/bin/bash
# A/B: MobileNetV3-Large LUTs profiled by the build before (old) and after (new) the pair probe,
# alternated, each benched right after with its own binary.
cd /tmp/q/ab
for run in new1 old1 old2 new2; do
  v=${run%?}; mkdir -p $run
  echo "$run start $(date +%H:%M:%S) link $(/tmp/q/link 1)" >> log
  /tmp/q/st/layerwise.$v profile --model mobilenetv3_large --threads 1,2 --libs native,openblas,xnnpack,onednn \
    --out $run/mobilenetv3_large.lut.json --quiet > $run/profile.out 2> $run/profile.err
  echo "$run bench $(date +%H:%M:%S) link $(/tmp/q/link 1)" >> log
  /tmp/q/st/layerwise.$v bench --lut-dir $run --models mobilenetv3_large --threads 1,2 --repeats 15 \
    --labels opt-fp32,opt-int8 --steps $run/steps.csv --recheck --md $run/bench.md --out $run/bench.csv --quiet > /dev/null 2> $run/bench.err
done
echo "end $(date +%H:%M:%S) link $(/tmp/q/link 1)" >> log
