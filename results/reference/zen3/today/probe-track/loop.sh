#!/bin/bash
# Alternates one-core read bandwidth (256 / 16 / 2 MiB buffers) with SqueezeNet's 1-thread
# opt-fp32 and opt-int8 (bench, 7 rounds, the first Zen 3 LUT): does bandwidth track the drift?
for i in $(seq 1 ${1:-14}); do
  a=$(./bw 256); b=$(./bw 16); c=$(./bw 2)
  /tmp/q/z3/layerwise bench --lut-dir /tmp/q/z3/luts --models squeezenet1_1 --threads 1 --repeats 7 --labels opt-fp32,opt-int8 --out b$i.csv --quiet > /dev/null 2>&1
  m=$(python3 -c "import csv;r=list(csv.DictReader(open('b$i.csv')));print(' '.join('%s %.3f probe %s'%(x['deployment'],float(x['measured_ms'])/float(x['predicted_ms']),x['speed_ratio_t1']) for x in r if x['status']=='ok'))")
  echo "$(date +%T) bw256 $a bw16 $b bw2 $c $m"
done
