#!/bin/bash
# Final quiet-machine measurements of this session (issues 12 and 16): run with nothing else on the machine.
# usage: run.sh OUTDIR   (first: gcc -O2 -o /tmp/q/vcpu_speed results/reference/predictions/handoff/experiments/vcpu_speed.c)
set -u
L=/work/main/build/explorer/layerwise
O=${1:-/tmp/final/out}; mkdir -p $O/luts; cd $O
MODELS="resnet50 mobilenetv2 mobilenetv3_large squeezenet1_1 googlenet"
lscpu | grep -E 'Model name|Flags' > cpu.txt
noise() {  # the vCPUs' own speed: 400 chunks of a fixed FP loop on each CPU, alone and together
  for c in 0 1; do echo "cpu$c alone: $(taskset -c $c /tmp/q/vcpu_speed)"; done
  taskset -c 0 /tmp/q/vcpu_speed > /tmp/q/n0 & echo "cpu1 with cpu0 busy: $(taskset -c 1 /tmp/q/vcpu_speed)"; wait; echo "cpu0 with cpu1 busy: $(cat /tmp/q/n0)"
}
noise > noise.before.txt
# 1. LUTs: ResNet-50 with every library (the profiling-time target), the others without LibTorch.
for M in $MODELS; do
  LIBS=native,openblas,xnnpack,onednn; [ $M = resnet50 ] && LIBS=native,openblas,xnnpack,torch,onednn
  uptime > $M.profile.load
  /usr/bin/time -f "%e s wall %U+%S s cpu" $L profile --model $M --out luts/$M.lut.json --libs $LIBS --threads 1,2 --quiet 2> $M.profile.err
done
# 2. One interleaved run: speed-ups over Ref-FP32 (f32, int8, mixed) at 1 and 2 threads.
uptime > speed.load
$L bench --lut-dir luts --models ${MODELS// /,} --threads 1,2 --repeats 15 --labels ref-fp32,opt-fp32,opt-int8,opt-mixed \
  --out speed.csv --md speed.md --steps speed.steps.csv --quiet > /dev/null 2> speed.err
# 3. Predictions: three runs per model of the found deployments, with per-step residuals.
for r in 1 2 3; do for M in $MODELS; do
  uptime >> bench.load
  $L bench --lut-dir luts --models $M --threads 1,2 --repeats 15 --labels opt-fp32,opt-int8,opt-mixed \
    --out $M.r$r.csv --md $M.r$r.md --steps $M.r$r.steps.csv --quiet > /dev/null 2> $M.r$r.err
done; done
# 4. oneDNN 1x1 vs the best f32 GEMM.
/work/main/build/tests/bench_conv --onednn_vs_gemm > onednn_vs_gemm.txt 2>&1
noise > noise.after.txt
echo done > finished
