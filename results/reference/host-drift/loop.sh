#!/bin/bash
# monitor: memprobe then a squeezenet native+onednn 1-thread profile, repeated until /tmp/q/mon/stop exists
cd /work/main
i=0
while [ ! -e /tmp/q/mon/stop ]; do
  echo "$i $(date +%s) $(/tmp/q/mon/memprobe)" >> /tmp/q/mon/probe.log
  /tmp/q/mon/layerwise.bin profile --model squeezenet1_1 --libs native,onednn --threads 1 --out /tmp/q/mon/lut.$i.json --quiet > /dev/null 2>&1
  echo "$i $(date +%s) $(/tmp/q/mon/memprobe)" >> /tmp/q/mon/probe.log
  i=$((i+1))
done
