#!/bin/bash
# This folder's run (2026-12-06, 23:15-23:55 UTC): ../zen3-computing/all.sh /tmp/q/p101 on the stop-70 head
# (044fa2a), i.e. fresh LUTs of the five bench models (every library on ResNet-50, four on the others, 1 + 2
# threads; profile/) and one interleaved `layerwise bench --threads 1,2 --repeats 10 --labels
# ref-fp32,native,xnnpack,onednn,opt-fp32,opt-int8,opt-mixed` (bench/). Its prediction rounds were
# stopped after the bench to leave the session's time to refine-class/ (which benches the same LUTs
# three times per model); oneDNN's 1x1 against the best GEMM ran on its own after (onednn_vs_gemm.txt).
set -u
bash /work/main/results/reference/zen3-computing/all.sh /tmp/q/p101
