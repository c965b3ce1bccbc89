#!/bin/bash
# Flush of at least the shared cache for rows whose packed weights are over twice their raw
# bytes (native Winograd F(4x4)/F(6x6), padded blocked first convs) only, one-off build
# (LW_FLUSH_WINO, /tmp/sq/layerwise_wino); three models, 1 thread, every library; against
# the shipped LUTs of ../ff (profiled 00:21-00:36), 3 rounds back to back.
cd /tmp/fw  # (copied here from /tmp/fw)
B=/work/main/build/explorer/layerwise; W=/tmp/sq/layerwise_wino
M="squeezenet1_1 googlenet mobilenetv2"
mkdir -p ship wino; for m in $M; do cp /tmp/ff/ship/$m.lut.json ship/; done
uptime > load
for m in $M; do
  LW_FLUSH_WINO=1 /usr/bin/time -f "$m wino %e s" $W profile --model $m --threads 1 --out wino/$m.lut.json --quiet > wino/$m.profile.out 2>> times.txt
done
for r in 1 2 3; do for m in $M; do for v in ship wino; do
  $B bench --lut-dir $v --models $m --threads 1 --repeats 10 --labels ref-fp32,onednn,opt-fp32,opt-int8,opt-mixed --out $v/$m.bench.$r.csv --quiet > /dev/null 2> $v/$m.bench.$r.err
done; done; done
uptime >> load
echo done > finished
