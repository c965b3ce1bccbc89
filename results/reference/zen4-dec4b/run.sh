set -u
cd /tmp/q/p99
for M in googlenet squeezenet1_1 resnet50; do
  LIBS=native,openblas,xnnpack,onednn; [ $M = resnet50 ] && LIBS=native,openblas,xnnpack,torch,onednn
  uptime > p.$M.profile.load
  /usr/bin/time -f "%e s wall %U+%S s cpu" ./layerwise profile --model $M --out luts/$M.lut.json --libs $LIBS --threads 1,2 --quiet 2> p.$M.profile.err
done
mkdir -p bench && cd bench && uptime > bench.load
/usr/bin/time -f "%e s" ../layerwise bench --lut-dir /tmp/q/p99/luts --models googlenet,squeezenet1_1,resnet50 --threads 1,2 --repeats 10 --labels ref-fp32,native,xnnpack,onednn,opt-fp32,opt-int8,opt-mixed --out bench.csv --md bench.md --steps steps.csv --quiet > bench.out 2> bench.err
uptime >> bench.load
echo done > /tmp/q/p99/finished
