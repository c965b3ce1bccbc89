#!/bin/bash
# Fresh LUTs of the five bench models and one interleaved bench, as zen5-dec7/bench/ (the same
# script, run from a copy with D=/tmp/q/p200).
bash /work/main/results/reference/zen5-dec7/bench/run.sh /tmp/q/p200
