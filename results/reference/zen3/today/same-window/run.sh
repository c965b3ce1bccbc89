#!/bin/bash
# The same-window trial (2026-11-29, Zen 3 VM), as run by hand in /tmp/q/s1: a bench with step timing
# of the found deployments on the LUTs of ../ (profiled 03:39-04:05), a profile of the same model
# minutes later with the cycle build (cycle.patch on 4f83ed4: after each 2-thread implementation's
# normal measurement, 30 runs each of the listed preparations, interleaved, medians printed as EXP
# lines), then the bench again. Then extract.py > steps.csv; analyse.py > analysis.md.
# usage: run.sh OUT   (OUT/lw-cyc: the cycle build; /tmp/q/z3/layerwise and luts/: ../run.sh's)
set -u
O=$1; cd $O; L=/tmp/q/z3/layerwise; LUTS=/tmp/q/z3/luts
bench() {  # model tag threads
  $L bench --lut-dir $LUTS --models $1 --threads $3 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed --near-wait 30 \
    --out $1.$2.csv --md $1.$2.md --steps $1.$2.steps.csv --quiet > /dev/null 2> $1.$2.err
  echo "bench $1 $2 $(date +%T) link $(/tmp/q/link 1)"
}
cyc() {  # model libs variants filter
  LW_CYCLE=$3 LW_EXP_FILTER=$4 ./lw-cyc profile --model $1 --libs $2 --threads 2 --no-weight-age \
    --out $1.cyc.lut.json --quiet > /dev/null 2> $1.cyc.err
  echo "cyc $1 $(date +%T) link $(/tmp/q/link 1)"
}
# w1 and w2 (MobileNetV3-Large; w1's profile with --far-wait 0, variants ",o,W"; w2 ",hr,hs,W")
bench mobilenetv3_large b1 2; cyc mobilenetv3_large native,onednn ",hr,hs,W" onednn_default_fused_t2; bench mobilenetv3_large b2 2
# w3, w4
for M in mobilenetv2 squeezenet1_1; do
  bench $M b1 2; cyc $M native,onednn,xnnpack ",W" _t2; bench $M b2 2
done
# w5: a plain profile (1 + 2 threads, this commit's binary), then one bench at both thread counts
$L profile --model mobilenetv2 --libs native,onednn,xnnpack --threads 1,2 --out mobilenetv2.t12.lut.json --quiet > /dev/null 2>&1
bench mobilenetv2 b3 1,2
# w6: 1 thread, each part of the preparation left out in turn
bench mobilenetv2 t1b1 1; LW_CYCLE=",f,o,e,d,W" LW_EXP_FILTER=_t1 ./lw-cyc profile --model mobilenetv2 \
  --libs native,onednn,xnnpack --threads 1 --no-weight-age --out mobilenetv2.cyc1.lut.json --quiet > /dev/null 2> mobilenetv2.cyc1.err
bench mobilenetv2 t1b2 1
# w7: 1 thread, oneDNN, the cold preparation with 96 MiB more read (cycle-bigflush.patch build as lw-cyc3)
bench mobilenetv2 t1c1 1; LW_CYCLE=",F,W" LW_EXP_FILTER=onednn ./lw-cyc3 profile --model mobilenetv2 \
  --libs native,onednn,xnnpack --threads 1 --no-weight-age --out mobilenetv2.cyc3.lut.json --quiet > /dev/null 2> mobilenetv2.cyc3.err
bench mobilenetv2 t1c2 1
