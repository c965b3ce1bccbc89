#!/bin/bash
cd /tmp/x; mkdir -p e3
for r in 1 2; do for v in base tlb noflush noevict noshared wake2 tlb,wake2; do
 LW_EXP=$v /tmp/x/lw.exp2 bench --lut-dir /tmp/q/p5/luts --models mobilenetv2 --threads 2 --repeats 15 --labels opt-fp32 --recheck --out e3/mv2.$v.r$r.csv --steps e3/mv2.$v.r$r.steps.csv --quiet > /dev/null 2> e3/$v.r$r.err
done; done; echo done > e3/finished
