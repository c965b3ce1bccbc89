#!/bin/bash
# Selection bias: the search's picks vs single-library deployments, rechecked alone and in a second profile.
set -eu
cd /tmp/s76/sel  # (this folder: its outputs, b1.md, b2.md and pair.txt, are kept here)
L=/work/main/build/explorer/layerwise
M=${M:-configs/models/fmnist_resnet.json}; N=${N:-fmnist_resnet}
P="--libs native,openblas,xnnpack,torch,onednn --threads 1"
mkdir -p l1
cd /work/main
$L profile --model $M $P --out /tmp/s76/sel/l1/$N.lut.json --quiet > /tmp/s76/sel/p1.out
for k in 1 2; do
  $L bench --lut-dir /tmp/s76/sel/l1 --models $M --threads 1 --labels ref-fp32,native,xnnpack,onednn,torch-nhwc,opt-fp32,opt-int8 \
    --recheck --repeats 10 --steps /tmp/s76/sel/steps$k.csv --out /tmp/s76/sel/b$k.csv --quiet > /tmp/s76/sel/b$k.md 2> /tmp/s76/sel/b$k.err
done
$L profile --model $M $P --out /tmp/s76/sel/l2.lut.json --quiet > /tmp/s76/sel/p2.out
python3 /work/main/results/reference/zen5-dec7/lut_pair.py /tmp/s76/sel/l1/$N.lut.json /tmp/s76/sel/l2.lut.json /tmp/s76/sel/steps1.csv > /tmp/s76/sel/pair.txt
