#!/bin/bash
# stop 34: LUTs with (a) and without (b, --no-weight-age) the aged second timing, profiled
# model by model in turn; then three prediction rounds with a (recheck, steps) and, between
# them, two with b (steps), all with a copy of the binary.
set -u
O=/tmp/q/p38; L=$O/layerwise; cd $O; cp /work/main/build/explorer/layerwise $L; mkdir -p a/luts b/luts preda predb
MODELS="resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet"
for M in $MODELS; do
  LIBS=native,openblas,xnnpack,onednn; [ $M = resnet50 ] && LIBS=native,openblas,xnnpack,torch,onednn
  for V in a b; do
    X=""; [ $V = b ] && X=--no-weight-age
    echo "$M $V $(date +%T) $(cat /proc/loadavg)" >> profile.load
    /usr/bin/time -f "%e s wall %U+%S s cpu" $L profile --model $M --out $V/luts/$M.lut.json --libs $LIBS --threads 1,2 $X --quiet > $V/p.$M.out 2> $V/p.$M.err
  done
done
echo done > prof.finished
noise() { for c in 0 1; do echo "cpu$c alone: $(taskset -c $c /tmp/q/vcpu_speed)"; done
  taskset -c 0 /tmp/q/vcpu_speed > /tmp/q/n0 & echo "cpu1 with cpu0 busy: $(taskset -c 1 /tmp/q/vcpu_speed)"; wait; echo "cpu0 with cpu1 busy: $(cat /tmp/q/n0)"; }
noise > preda/noise.before.txt
for r in 1 2 3; do for M in $MODELS; do
  echo "$M a r$r $(date +%T) $(cat /proc/loadavg)" >> bench.load
  /usr/bin/time -f "%e s" $L bench --lut-dir a/luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed \
    --recheck --out preda/$M.r$r.csv --md preda/$M.r$r.md --steps preda/$M.r$r.steps.csv --quiet > /dev/null 2> preda/$M.r$r.err
  if [ $r -lt 3 ]; then
  echo "$M b r$r $(date +%T) $(cat /proc/loadavg)" >> bench.load
  /usr/bin/time -f "%e s" $L bench --lut-dir b/luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed \
    --no-weight-age --out predb/$M.r$r.csv --md predb/$M.r$r.md --steps predb/$M.r$r.steps.csv --quiet > /dev/null 2> predb/$M.r$r.err
  fi
done; done
noise > preda/noise.after.txt
echo done > finished
