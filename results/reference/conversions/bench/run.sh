#!/bin/bash
# One interleaved bench per model: Ref-FP32 and the three found deployments, 1 and 2 threads, on the LUTs of ../luts-profile.
cd "$(dirname "$0")"; L=/tmp/q/layerwise.bench; cp /work/main/build/explorer/layerwise $L
for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do
  echo "$M $(date +%T) $(cat /proc/loadavg)" >> bench.load
  /usr/bin/time -f "%e s" $L bench --lut-dir /tmp/q/p6/luts --models $M --threads 1,2 --repeats 15 \
    --labels ref-fp32,opt-fp32,opt-int8,opt-mixed --out $M.csv --md $M.md --quiet > /dev/null 2> $M.err
done
echo done > finished
