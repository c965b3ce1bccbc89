#!/bin/bash
# The A/B of this folder: one-conv networks (nets/, every shape of the five bench models whose
# Winograd block plan the change touches), profiled with native only by two or more
# `layerwise` binaries in alternation (bin_a: before, bin_e: the commit), then agg.py.
#   bash run.sh DIR "a e" 3 1    (DIR holds bin_a, bin_e; 3 rounds; --threads 1)
set -u
D=$1; V=${2:-"a e"}; N=${3:-3}; T=${4:-1}; mkdir -p $D/out
for i in $(seq $N); do for n in $(dirname $0)/nets/*.json; do b=$(basename $n .json); for v in $V; do
  $D/bin_$v profile --model $n --out $D/out/out.$b.$v.$i.json --libs native --threads $T --runs 10 --max-runs 30 \
    --max-seconds 1 --early-stop 10 --quiet > /dev/null 2>&1
done; done; done
python3 $(dirname $0)/agg.py $D/out "$(echo $V | tr -d ' ')"
