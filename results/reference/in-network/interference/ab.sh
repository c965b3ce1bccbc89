#!/bin/bash
# Same binary; LW_NO_RELEASE=1 skips the park before each deployment (the behaviour before).
cd /tmp/q/g2
for i in 1 2 3; do
  for v in before fixed; do
    E=""; [ $v = before ] && E="LW_NO_RELEASE=1"
    env $E timeout 300 /tmp/q/g2/layerwise.switch bench --lut-dir luts_p7 --models googlenet --threads 2 --repeats 10 --labels native,xnnpack,onednn --out ab3.$v.$i.csv --quiet >/dev/null 2>ab3.$v.$i.err
    echo "== $v $i: $(cut -d, -f3,6,8 ab3.$v.$i.csv | tail -n +2 | tr '\n' ' ')"
  done
done > ab3.txt
echo done >> ab3.txt
