#!/bin/bash
cd /tmp/x; mkdir -p e5
for M in mobilenetv2 squeezenet1_1 mobilenetv3_large googlenet resnet50; do for v in base dt; do
 E=X=1; [ $v = dt ] && E=LW_EXP_DT=1
 env $E /tmp/x/lw.dt bench --lut-dir /tmp/q/p6/luts --models $M --threads 1,2 --repeats 15 --labels opt-int8,opt-mixed --recheck --out e5/$M.$v.r1.csv --steps e5/$M.$v.r1.steps.csv --quiet > /dev/null 2> e5/$M.$v.err
done; done; echo done > e5/finished
