#!/bin/bash
# This folder's run: zen5-l3/all.sh's protocol (fresh LUTs of the five bench models, one
# interleaved bench, prediction rounds with bench --near-wait 60, oneDNN's 1x1 against the best
# GEMM) with the computing profiler (--computing-us 500, the default since c08cf17), two
# prediction rounds (ROUNDS) to fit the session, in folder D (default /tmp/q/p93).
set -u
D=${1:-/tmp/q/p93}; mkdir -p $D
gcc -O2 -o /tmp/q/vcpu_speed /work/main/results/reference/predictions/handoff/experiments/vcpu_speed.c
{ lscpu; git -C /work/main rev-parse HEAD; } > $D/machine.txt
export BENCH_EXTRA="--near-wait 60" ROUNDS="${ROUNDS:-1 2}"
bash /work/main/results/reference/int8-layers/final/all.sh $D
/work/main/build/tests/bench_conv --onednn_vs_gemm > $D/onednn_vs_gemm.txt 2>&1
echo done > $D/zen3-computing.finished
