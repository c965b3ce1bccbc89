#!/bin/bash
# Alternates the cpu0<->cpu1 round trip with MobileNetV2's 2-thread deployments (bench, 5 rounds).
for i in $(seq 1 90); do
  p1=$(./pingpong); p2=$(./pingpong)
  /tmp/q/p27/layerwise bench --lut-dir /tmp/q/p27/luts --models mobilenetv2 --threads 2 --repeats 5 --labels opt-fp32,opt-int8 --out b$i.csv --quiet > /dev/null 2>&1
  m=$(python3 -c "import csv;r=[x for x in csv.DictReader(open('b$i.csv')) if x['threads']=='2'];print(' '.join(x['deployment']+'='+x['measured_ms'] for x in r))")
  echo "$(date +%T) pingpong [$p1] [$p2] $m"
done
