#!/bin/bash
# Prediction runs: three runs per model of the found deployments, with per-step residuals and a recheck.
# usage: pred.sh OUT [LUT_DIR]; BENCH_EXTRA: more bench flags (e.g. "--near-wait 60"); ROUNDS (default "1 2 3").
set -u
L=/tmp/q/layerwise.pred; I=${2:-/tmp/q}; O=$1; mkdir -p $O; cd $O
cp /work/main/build/explorer/layerwise $L
MODELS="resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet"
noise() { for c in 0 1; do echo "cpu$c alone: $(taskset -c $c /tmp/q/vcpu_speed)"; done
  taskset -c 0 /tmp/q/vcpu_speed > /tmp/q/n0 & echo "cpu1 with cpu0 busy: $(taskset -c 1 /tmp/q/vcpu_speed)"; wait; echo "cpu0 with cpu1 busy: $(cat /tmp/q/n0)"; }
noise > noise.before.txt
for r in ${ROUNDS:-1 2 3}; do for M in $MODELS; do
  echo "$M r$r $(date +%T) $(cat /proc/loadavg)" >> bench.load
  /usr/bin/time -f "%e s" $L bench --lut-dir $I/luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed \
    --recheck ${BENCH_EXTRA:-} --out $M.r$r.csv --md $M.r$r.md --steps $M.r$r.steps.csv --quiet > /dev/null 2> $M.r$r.err
done; done
noise > noise.after.txt
echo done > finished
