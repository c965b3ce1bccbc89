#!/bin/bash
cd /tmp/x; mkdir -p e1
run() { tag=$1; shift; env "$@" /tmp/x/lw.exp bench --lut-dir /tmp/q/p5/luts --models mobilenetv2 --threads 1,2 --repeats 15 --labels opt-fp32 --recheck --out e1/$tag.csv --steps e1/$tag.steps.csv --quiet > /dev/null 2> e1/$tag.err; }
for r in 1 2; do
 run v0.r$r X=1
 run rot4.r$r LW_EXP_ROT=4
 run in2.r$r LW_EXP_IN_READS=2
 run split.r$r LW_EXP_SPLIT=1
 run rot4in2.r$r LW_EXP_ROT=4 LW_EXP_IN_READS=2
done
echo done > e1/finished
