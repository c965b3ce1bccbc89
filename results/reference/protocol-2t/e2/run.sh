#!/bin/bash
cd /tmp/x; mkdir -p e2
run() { tag=$1; shift; for M in mobilenetv2 mobilenetv3_large resnet50; do env "$@" /tmp/x/lw.exp bench --lut-dir /tmp/q/p5/luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8 --recheck --out e2/$M.$tag.csv --steps e2/$M.$tag.steps.csv --quiet > /dev/null 2> e2/$M.$tag.err; done; }
for r in 1 2; do
 run v0.r$r X=1
 run rot4.r$r LW_EXP_ROT=4
 run rot4split.r$r LW_EXP_ROT=4 LW_EXP_SPLIT=1
done
echo done > e2/finished
