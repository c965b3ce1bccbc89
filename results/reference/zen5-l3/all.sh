#!/bin/bash
# This folder's run: the Zen 5 protocol of ../zen5/all.sh (fresh LUTs of the five bench models,
# one interleaved bench, three prediction rounds with bench --near-wait 60, oneDNN's 1x1 against
# the best GEMM) on a Zen 5 VM that reports a true 32 MiB L3, in folder D (default /tmp/q/p80).
set -u
D=${1:-/tmp/q/p80}; mkdir -p $D
gcc -O2 -o /tmp/q/vcpu_speed /work/main/results/reference/predictions/handoff/experiments/vcpu_speed.c
{ lscpu; git -C /work/main rev-parse HEAD; } > $D/machine.txt
export BENCH_EXTRA="--near-wait 60"
bash /work/main/results/reference/int8-layers/final/all.sh $D
/work/main/build/tests/bench_conv --onednn_vs_gemm > $D/onednn_vs_gemm.txt 2>&1
echo done > $D/zen5-l3.finished
