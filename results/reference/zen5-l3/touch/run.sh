#!/bin/bash
# Touch tests: oneDNN steps' in-network time (taken inside their run) with data read just before
# them, by LW_EXP_TOUCH mode: 1 = packed weights, 2 = nothing (the control), 3 = output buffer and
# workspace, 4 = all three (exp.patch). The modes alternate, 1 thread, this folder's p80 LUTs.
# usage: [LUTS=DIR] run.sh BINARY PREFIX ROUNDS MODE...   (a build with exp.patch applied; LUTS
# defaults to this folder's p80 LUTs; ../../zen4-dec1/code-touch/ ran it with its own)
#   run 1: run.sh /tmp/q/layerwise.touch  ""  3 1 2     (19:18 UTC; modes 1 and 2 run the same code
#                                                         in the build without modes 3 and 4)
#   run 2: run.sh /tmp/q/layerwise.touch2 t2. 4 2 3 4   (19:20-19:21 UTC)
set -u
BIN=$1 PREFIX=$2 ROUNDS=$3; shift 3
LUTS=${LUTS:-/tmp/q/p80/luts}
for r in $(seq 1 $ROUNDS); do for M in mobilenetv2 mobilenetv3_large; do for e in "$@"; do
  O=$PREFIX$M.e$e.r$r
  LW_EXP_TOUCH=$e $BIN bench --lut-dir $LUTS --models $M --threads 1 --repeats 15 \
    --labels opt-fp32,opt-int8 --out $O.csv --md $O.md --steps $O.steps.csv --quiet > /dev/null 2> $O.err
done; done; done
