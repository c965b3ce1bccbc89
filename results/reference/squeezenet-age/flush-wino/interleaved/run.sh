#!/bin/bash
# flush-wino again on the two confounded models, the shipped and the one-off profile now back
# to back per model (ship, wino; then the next model), then 3 rounds of benches back to back.
cd /tmp/fw2  # (copied here from /tmp/fw2)
B=/work/main/build/explorer/layerwise; W=/tmp/sq/layerwise_wino
M="googlenet mobilenetv2"
mkdir -p ship wino
uptime > load
for m in $M; do
  /usr/bin/time -f "$m ship %e s" $B profile --model $m --threads 1 --out ship/$m.lut.json --quiet > ship/$m.profile.out 2>> times.txt
  LW_FLUSH_WINO=1 /usr/bin/time -f "$m wino %e s" $W profile --model $m --threads 1 --out wino/$m.lut.json --quiet > wino/$m.profile.out 2>> times.txt
done
for r in 1 2 3; do for m in $M; do for v in ship wino; do
  $B bench --lut-dir $v --models $m --threads 1 --repeats 10 --labels ref-fp32,onednn,opt-fp32,opt-int8,opt-mixed --out $v/$m.bench.$r.csv --quiet > /dev/null 2> $v/$m.bench.$r.err
done; done; done
uptime >> load
echo done > finished
