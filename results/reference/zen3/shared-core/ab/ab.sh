#!/bin/bash
# A/B: MobileNetV3-Large LUTs profiled by two builds, in the order given, each benched right
# after with its own binary. usage: ab.sh RUN=BUILD ... (BUILD: /tmp/q/st/layerwise.BUILD)
# Ran as: ab.sh new1=new old1=old old2=old new2=new (10:06-10:34 UTC), then
#         ab.sh old3=old new3=new3 (10:37-10:49 UTC).
cd /tmp/q/ab
for pair in "$@"; do
  run=${pair%%=*}; bin=/tmp/q/st/layerwise.${pair#*=}; mkdir -p $run
  echo "$run start $(date +%H:%M:%S) link $(/tmp/q/link 1)" >> log
  $bin profile --model mobilenetv3_large --threads 1,2 --libs native,openblas,xnnpack,onednn \
    --out $run/mobilenetv3_large.lut.json --quiet > $run/profile.out 2> $run/profile.err
  echo "$run bench $(date +%H:%M:%S) link $(/tmp/q/link 1)" >> log
  $bin bench --lut-dir $run --models mobilenetv3_large --threads 1,2 --repeats 15 \
    --labels opt-fp32,opt-int8 --steps $run/steps.csv --recheck --md $run/bench.md --out $run/bench.csv --quiet > /dev/null 2> $run/bench.err
done
echo "end $(date +%H:%M:%S) link $(/tmp/q/link 1)" >> log
