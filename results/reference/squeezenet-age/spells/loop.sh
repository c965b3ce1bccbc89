#!/bin/bash
# Alternates a short SqueezeNet bench (ref-fp32, opt-fp32) with the host probes, ~8 min.
cd /tmp/probe
end=$((SECONDS+480)); i=0
while [ $SECONDS -lt $end ]; do
  i=$((i+1))
  /work/main/build/explorer/layerwise bench --lut-dir /tmp/sq/base --models squeezenet1_1 --threads 1 --repeats 5 --labels ref-fp32,opt-fp32 --out b.$i.csv --quiet > /dev/null 2>&1
  p=$(./probe)
  r=$(awk -F, 'NR==2{printf "%s ", $6} NR==3{printf "%s ", $6}' b.$i.csv)
  echo "$(date +%T) $i ref_opt_ms $r $p" >> log.txt
done
echo done > finished
