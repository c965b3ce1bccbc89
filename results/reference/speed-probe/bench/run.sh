#!/bin/bash
cd /tmp/q/b12
uptime > bench.load
/usr/bin/time -f "%e s" ./layerwise bench --lut-dir /tmp/q/p11/luts --threads 1,2 --repeats 10 --labels ref-fp32,native,xnnpack,onednn,opt-fp32,opt-int8,opt-mixed --out bench.csv --md bench.md --quiet > bench.out 2> bench.err
uptime >> bench.load
./bench_conv --onednn_vs_gemm > onednn_vs_gemm.txt 2>&1
echo done > finished
