set -u
cd /tmp/q/f6; cp /work/main/build/explorer/layerwise ./layerwise; mkdir -p with without
for M in googlenet squeezenet1_1 resnet50; do
  LIBS=native,openblas,xnnpack,onednn; [ $M = resnet50 ] && LIBS=native,openblas,xnnpack,torch,onednn
  /usr/bin/time -f "%e s wall %U+%S s cpu" ./layerwise profile --model $M --out with/$M.lut.json --libs $LIBS --threads 1,2 --quiet 2> p.$M.err
done
/usr/bin/python3 strip.py
for r in 1 2; do for V in with without; do
  ./layerwise bench --lut-dir $V --models googlenet,squeezenet1_1,resnet50 --threads 1,2 --repeats 10 --labels ref-fp32,native,opt-fp32 --out $V/r$r.csv --md $V/r$r.md --steps $V/r$r.steps.csv --quiet > $V/r$r.out 2> $V/r$r.err
done; done
echo done > finished
