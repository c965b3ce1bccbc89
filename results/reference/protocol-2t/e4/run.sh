#!/bin/bash
cd /tmp/x; mkdir -p e4
for r in 1 2; do for v in 32 24 16 8; do for M in mobilenetv2 mobilenetv3_large; do
 LW_EXP_FLUSH_MB=$v /tmp/x/lw.exp3 bench --lut-dir /tmp/q/p5/luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8 --recheck --out e4/$M.f$v.r$r.csv --steps e4/$M.f$v.r$r.steps.csv --quiet > /dev/null 2> e4/$M.$v.r$r.err
done; done; done; echo done > e4/finished
