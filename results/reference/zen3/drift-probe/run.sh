#!/bin/bash
# Drift vs memory bandwidth: every ~90 s, read bandwidth at 4..64 MB, then bench with --recheck
# on fixed (old) LUTs in /tmp/s: rechecked / predicted is the drift since profiling.
# usage: run.sh ROUNDS OUT (first: gcc -O3 -march=native probe.c -o OUT/probe)
O=${2:-/tmp/drift}; mkdir -p $O; L=$O/layerwise; cp /work/main/build/explorer/layerwise $L
for i in $(seq 1 ${1:-25}); do
  echo "$i $(date +%T) $(cat /proc/loadavg) $(taskset -c 0 $O/probe)" >> $O/probe.log
  for M in squeezenet1_1 googlenet; do
    $L bench --lut-dir /tmp/s --models $M --threads 1 --repeats 5 --labels opt-fp32 --recheck --out $O/$M.$i.csv --steps $O/$M.$i.steps.csv --quiet > /dev/null 2>> $O/err.log
  done
  sleep 45
done
echo done > $O/finished
