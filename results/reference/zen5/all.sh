#!/bin/bash
# This folder's run (2026-11-27, 22:55-23:50 UTC): fresh LUTs of the five bench models, one
# interleaved bench, three prediction rounds with bench --near-wait 60, then oneDNN's 1x1 vs
# the best GEMM; the same steps as ../int8-layers/final/all.sh (and ../zen4/), in /tmp/q/p70.
export BENCH_EXTRA="--near-wait 60"
bash /work/main/results/reference/int8-layers/final/all.sh /tmp/q/p70
/work/main/build/tests/bench_conv --onednn_vs_gemm > /tmp/q/p70/onednn_vs_gemm.txt 2>&1
