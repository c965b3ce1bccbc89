#!/bin/bash
# LW_PULL=0 vs 2 (the caller writes a 1-thread step's output slot first, outside its timing) on two more models
for M in squeezenet1_1 mobilenetv3_large; do for r in 1 2; do for P in 0 2; do
  LW_PULL=$P /tmp/q/lw_pull3 bench --lut-dir /tmp/q/p74/luts --models $M --threads 2 --repeats 10 --labels opt-fp32,opt-int8,opt-mixed --steps $M.z$P.r$r.steps.csv --out $M.z$P.r$r.csv --quiet >/dev/null 2>$M.z$P.r$r.err
  echo "$(date +%T) $M z$P r$r"
done; done; done
echo done > other.finished
