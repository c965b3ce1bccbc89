#!/bin/bash
# Interleaved A/B of native kernels' pool: libgomp's team (default, LUTs $1) vs our worker
# (LAYERWISE_NATIVE_POOL=native, LUTs $2), 2 threads, the found deployments, rounds $ROUNDS
# (default "1 2"; the third ran as ROUNDS=3).
set -u
A=$1; B=$2; cd /tmp/q/ab49; cp /work/main/build/explorer/layerwise ./lw
for r in ${ROUNDS:-1 2}; do for M in resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet; do
  for mode in omp native; do
    if [ $mode = native ]; then export LAYERWISE_NATIVE_POOL=native; L=$B; else unset LAYERWISE_NATIVE_POOL; L=$A; fi
    echo "$M $mode r$r $(date +%T) $(cat /proc/loadavg)" >> ab.load
    ./lw bench --lut-dir $L --models $M --threads 2 --repeats 7 --labels opt-fp32,opt-int8,opt-mixed --near-wait 30 \
      --out $M.$mode.r$r.csv --md $M.$mode.r$r.md --steps $M.$mode.r$r.steps.csv --quiet > /dev/null 2> $M.$mode.r$r.err
  done
done; done
echo done > finished
