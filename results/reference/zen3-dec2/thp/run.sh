#!/bin/bash
# THP A/B: the profiler's alone-timing against the network, MobileNetV2 / V3-L 1 thread.
set -u
D=/tmp/q/thp; L=/tmp/q/p92/layerwise; cd $D
for it in 1 2; do for mode in madvise always; do for M in mobilenetv2 mobilenetv3_large; do
  echo $mode > /sys/kernel/mm/transparent_hugepage/enabled
  T=$M.$mode.$it; mkdir -p $T
  echo "$T $(date +%T) $(cat /proc/loadavg)" >> log
  $L profile --model $M --out $T/$M.lut.json --libs native,onednn --threads 1 --quiet 2> $T/profile.err
  $L bench --lut-dir $T --models $M --threads 1 --repeats 15 --labels onednn,opt-fp32 --recheck --out $T/b.csv --md $T/b.md --steps $T/steps.csv --quiet > /dev/null 2> $T/bench.err &
  sleep 5; grep AnonHugePages /proc/meminfo >> log; wait
done; done; done
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
echo done > finished
