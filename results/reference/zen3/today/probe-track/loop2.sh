#!/bin/bash
# Alternates fixed workloads (gauges.c: fma in registers, L1 sum, L2 sum, 96^3 GEMM; ms) with
# SqueezeNet's 1-thread opt-fp32 / opt-int8 (bench, 7 rounds, the first Zen 3 LUT).
for i in $(seq 1 ${1:-60}); do
  g1=$(./gauges)
  /tmp/q/z3/layerwise bench --lut-dir /tmp/q/z3/luts --models squeezenet1_1 --threads 1 --repeats 7 --labels opt-fp32,opt-int8 --out c$i.csv --quiet > /dev/null 2>&1
  g2=$(./gauges)
  m=$(python3 -c "import csv;r=list(csv.DictReader(open('c$i.csv')));print(' '.join('%.3f'%(float(x['measured_ms'])/float(x['predicted_ms'])) for x in r if x['status']=='ok'), r[0]['speed_ratio_t1'])")
  echo "$(date +%T) $g1 $g2 $m"
done
