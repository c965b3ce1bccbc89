#!/bin/bash
# Hypothesis: the fused int8 conv + residual times 0.17 or 0.42 ms depending on where malloc puts
# its buffers (mmap'd chunks share one offset within a 4 KiB page: 4K aliasing input vs output).
cd /tmp/q/x2
for k in 1 2; do
  MALLOC_MMAP_THRESHOLD_=65536 /tmp/q/p16/layerwise profile --model resnet50 --out mmap.$k.lut.json --libs native,onednn --threads 1 --quiet 2> mmap.$k.err
  MALLOC_MMAP_THRESHOLD_=33554432 /tmp/q/p16/layerwise profile --model resnet50 --out heap.$k.lut.json --libs native,onednn --threads 1 --quiet 2> heap.$k.err
done
echo done > finished
